/**
 * An editable link's page, as upstream's (docs/adr/0006-library-and-document-surfaces.md): a plain
 * Markdown editor over the latest version with a Write/Preview toggle, an optional name remembered
 * in the browser, and Save. Its one inline script is allowed by a per-request CSP nonce and talks
 * only to this link's own endpoints (`state`, `preview`, `edit`, same origin). A stale save gets
 * the latest body back (409) and the editor offers to load it.
 */
import { escapeHtml } from '../../../../markdown/escape.ts';
import { presentDocument, type PresentTheme } from './page.ts';

// The primary button is the surface colour on the accent: the pair the link check measures (theme-tokens.ts).
const EDITOR_CSS = `
.editor-head{margin-bottom:1rem}
.editor-title{margin:0 0 .25rem;font-family:var(--font-heading);font-size:1.5rem;line-height:1.25}
.editor-note{margin:0;color:var(--muted);font-size:.9rem}
.editor-bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:1rem}
.editor-bar button{font:inherit;padding:.35rem .9rem;border:1px solid var(--border);border-radius:6px;background:var(--surface);color:var(--text);cursor:pointer}
.editor-bar button[aria-pressed="true"],.editor-bar button.primary{background:var(--accent);border-color:var(--accent);color:var(--surface)}
.editor-bar input{font:inherit;padding:.35rem .5rem;border:1px solid var(--border);border-radius:6px;min-width:10rem}
.editor-bar .spacer{flex:1}
textarea#body{width:100%;min-height:60vh;padding:1rem;font:15px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border:1px solid var(--border);border-radius:6px;resize:vertical;background:var(--surface);color:var(--text)}
#status{min-height:1.5em;color:var(--muted);font-size:.9em}
`;

// Plain ES2017, no dependencies. Elements are looked up by id; preview HTML comes from the server's
// sanitiser, so setting innerHTML from it is safe (and the CSP forbids any other script anyway).
const EDITOR_SCRIPT = `(function(){
var root=document.getElementById('editor');
var base=Number(root.getAttribute('data-version'));
var api=location.pathname.replace(/\\/+$/,'');
var body=document.getElementById('body'),preview=document.getElementById('preview'),status=document.getElementById('status');
var name=document.getElementById('name'),write=document.getElementById('write'),show=document.getElementById('show'),save=document.getElementById('save'),reload=document.getElementById('reload');
var saved=body.value,latest=null;
try{name.value=localStorage.getItem('present-editor-name')||'';}catch(e){}
name.addEventListener('change',function(){try{localStorage.setItem('present-editor-name',name.value);}catch(e){}});
function say(text){status.textContent=text;}
function post(path,data){return fetch(api+path,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(data)}).then(function(r){return r.json().then(function(j){return {status:r.status,body:j};});});}
function mode(previewing){write.setAttribute('aria-pressed',String(!previewing));show.setAttribute('aria-pressed',String(previewing));body.hidden=previewing;preview.hidden=!previewing;}
write.addEventListener('click',function(){mode(false);});
show.addEventListener('click',function(){post('/preview',{body:body.value}).then(function(r){if(r.status!==200){say('Preview failed.');return;}preview.innerHTML=r.body.html;mode(true);});});
save.addEventListener('click',function(){
  var data={body:body.value,base_version:base};if(name.value.trim())data.editor_name=name.value.slice(0,120);
  say('Saving\\u2026');
  post('/edit',data).then(function(r){
    if(r.status===200){base=r.body.version_number;saved=data.body;reload.hidden=true;say('Saved as version '+base+'.');return;}
    if(r.status===409&&r.body.detail){latest=r.body.detail;reload.hidden=false;say('Someone saved version '+latest.version_number+' first. Load it (your text is replaced) or copy your changes first.');return;}
    say('Save failed: '+(typeof r.body.detail==='string'?r.body.detail:(r.body.detail&&r.body.detail.message)||r.status));
  },function(){say('Save failed: network error.');});
});
reload.addEventListener('click',function(){
  if(!latest)return;
  if(body.value!==saved&&!confirm('Discard your unsaved changes?'))return;
  body.value=latest.body;saved=latest.body;base=latest.version_number;latest=null;reload.hidden=true;mode(false);say('Loaded version '+base+'.');
});
window.addEventListener('beforeunload',function(e){if(body.value!==saved){e.preventDefault();e.returnValue='';}});
setInterval(function(){
  fetch(api+'/state').then(function(r){return r.ok?r.json():null;}).then(function(s){
    if(s&&s.version_number!==base&&reload.hidden){say('A newer version ('+s.version_number+') exists. Save to see it, or reload the page.');}
  },function(){});
},10000);
})();`;

/** The editor over `body` (the latest version, `version`). */
export function editorPage(options: { body: string; version: number; title: string; theme: PresentTheme | null; nonce: string }): string {
  const inner = `<div id="editor" data-version="${options.version}">
<header class="editor-head no-print"><h1 class="editor-title">${escapeHtml(options.title)}</h1>
<p class="editor-note">You are editing the latest version (${options.version}) through a link. Saving makes a new version; earlier ones stay in the document's history.</p></header>
<div class="editor-bar no-print">
<button type="button" id="write" aria-pressed="true">Write</button>
<button type="button" id="show" aria-pressed="false">Preview</button>
<span class="spacer"></span>
<label>Name <input id="name" type="text" maxlength="120" autocomplete="name"></label>
<button type="button" id="save" class="primary">Save</button>
<button type="button" id="reload" hidden>Load latest</button>
</div>
<p id="status" role="status" class="no-print"></p>
<textarea id="body" aria-label="Document (Markdown)" spellcheck="true">${escapeHtml(options.body)}</textarea>
<div id="preview" class="doc" hidden></div>
</div>`;
  return presentDocument({ theme: options.theme, title: options.title, inner, extraCss: EDITOR_CSS, script: { nonce: options.nonce, source: EDITOR_SCRIPT } });
}
