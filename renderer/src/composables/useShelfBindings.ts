/**
 * The Shelf's bindings: which of the team's agents runs which shelf profile (stores/shelf.ts says
 * which team is shown), binding an agent to a profile, and materializing a profile into the files
 * an agent runs. The list is a hint beside the profiles; an answer for a team no longer shown is
 * dropped.
 */
import { ref } from 'vue';
import type { BindInput, Binding, LibraryClient, Materialized, MaterializeInput } from '../api/library.ts';

export function useShelfBindings(library: () => LibraryClient) {
  const bindings = ref<Binding[]>([]);
  /** Bumped when another team is shown: a list asked for before is dropped. */
  let generation = 0;

  /** No team's bindings (another team is shown): answers on their way are dropped. */
  function clearBindings(): void {
    generation++;
    bindings.value = [];
  }

  async function loadBindings(): Promise<void> {
    const mine = generation;
    try {
      const list = await library().bindings();
      if (mine === generation) bindings.value = list;
    } catch {
      // Bindings are shown as a hint; the Bind dialog says what failed when it matters.
    }
  }

  async function bind(agentId: string, input: BindInput): Promise<Binding> {
    const binding = await library().bind(agentId, input);
    await loadBindings();
    return binding;
  }

  function materialize(input: MaterializeInput): Promise<Materialized> {
    return library().materialize(input);
  }

  return { bindings, clearBindings, loadBindings, bind, materialize };
}
