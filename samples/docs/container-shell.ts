import { Shell } from 'agenttool/shell';

/** A persistent shell in the running container `agent`, through `podman exec`. */
export function containerShell(): Shell {
  return new Shell({
    sandbox: false,
    container: { name: 'agent', runtime: 'podman', workdir: '/work', user: 'dev' },
  });
}
