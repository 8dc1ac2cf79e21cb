-- Library and team scopes (DESIGN §4; server/teams/scopes.ts). Until now only the document
-- surface checked scopes, so every certificate held every library power implicitly.
--
-- The owner member (the node's owner acts through it, e.g. the UI) holds every scope.
UPDATE team_certificates
   SET scopes = '["docs:read","docs:write","library:approve","library:publish","library:read","library:write","team:admin"]'
 WHERE certificate_id IN (SELECT owner_certificate_id FROM teams);

-- Every other certificate keeps the shelf work it could do (library:read, library:write), but not
-- the powers this change separates out: publishing to the public catalog, deciding proposals and
-- registering the team's public name are granted only by issuing a certificate that asks for them.
-- Scopes stay a sorted JSON array without duplicates, as TeamService writes them.
UPDATE team_certificates
   SET scopes = (SELECT json_group_array(value)
                   FROM (SELECT value FROM json_each(team_certificates.scopes)
                         UNION SELECT 'library:read'
                         UNION SELECT 'library:write'
                         ORDER BY value))
 WHERE certificate_id NOT IN (SELECT owner_certificate_id FROM teams);

-- Revocation now closes the member's editable present links (server/teams/revocation.ts); close
-- those of certificates revoked before this migration, as of their revocation.
UPDATE present_links
   SET revoked_at = (SELECT c.revoked_at FROM team_certificates c WHERE c.certificate_id = present_links.certificate_id)
 WHERE editable = 1 AND revoked_at IS NULL
   AND certificate_id IN (SELECT certificate_id FROM team_certificates WHERE revoked_at IS NOT NULL);
