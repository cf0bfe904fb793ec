import { type McpResourceTemplate } from 'agenttool';

/**
 * A template that follows its subscribers (`follow`), writing down each follow and stop
 * in `events`, and keeping each `changed` it is given in `told`.
 */
export function watchedResource(): {
  readonly watched: McpResourceTemplate;
  readonly events: string[];
  readonly told: (() => void)[];
} {
  const events: string[] = [];
  const told: (() => void)[] = [];
  const watched: McpResourceTemplate = {
    uriTemplate: 'watched://{id}',
    name: 'watched',
    read: (vars) => `watched ${vars.id}`,
    follow: (uri, changed) => {
      events.push(`follow ${uri}`);
      told.push(changed);
      return () => void events.push(`stop ${uri}`);
    },
  };
  return { watched, events, told };
}
