/**
 * What the bash tool's description and docs/sandbox.md say of finding processes in the
 * Linux sandbox: the shell runs in a second PID namespace inside the one `/proc` shows
 * (the sandbox library's helper mounts the outer one's), so procps' `ps` refuses to run
 * when its own number is not one `/proc` lists (which depends on the numbers: not
 * asserted), and `/proc/<n>/cmdline` is the way to see what runs. Should the library mount the inner namespace's `/proc`, this fails: the
 * description and the docs must then say so.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell } from 'agenttool/shell';

const linux = process.platform === 'linux' ? describe : describe.skip;

linux('processes in the sandbox', () => {
  let dir: string;
  let shell: Shell;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-processes-')));
    shell = new Shell({ cwd: dir });
  });
  afterAll(async () => {
    await shell.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("are listed by /proc under numbers that are not the shell's", async () => {
    const { output } = await shell.run(
      // The background job is sleep once it has exec'd: looked for until then (bounded).
      'sleep 300 & echo "inner $!"; grep NSpid /proc/self/status; for i in $(seq 100); do n=$(grep -l "^sleep" /proc/[0-9]*/cmdline 2>/dev/null | wc -l); [ "$n" = 0 ] || break; sleep 0.05; done; echo "$n"; kill $!',
    );
    const [inner, nspid, listed] = output.trim().split('\n');
    expect(inner).toMatch(/^inner \d+$/);
    // Its number in /proc's namespace, then in its own: two namespaces, two numbers.
    expect(nspid).toMatch(/^NSpid:\t\d+\t\d+$/);
    expect(listed).toBe('1');
  });
});
