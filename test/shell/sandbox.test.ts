/**
 * What a model can reach through the served `bash` tool: a real `agenttool workspace`
 * server (the built CLI) over Streamable HTTP on loopback, its `$HOME` a temporary
 * folder holding credentials, called through our MCP client. Every escape is attempted
 * and must be refused, while the workspace, the shell's state and the hosts the
 * configuration allows keep working.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, outputText, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import {
  ROOT,
  ensureBuilt,
  killChildren,
  runAgenttool,
  startAgenttool,
  tempDir,
} from '../cli/helpers';

interface Served {
  readonly url: string;
  readonly pid: number;
  readonly remote: RemoteTools;
  readonly stderr: () => string;
  stop(): Promise<void>;
}

const SECRET_VALUE = `secret-${randomBytes(8).toString('hex')}`;
const opened: Served[] = [];

async function serveWorkspace(
  root: string,
  home: string,
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  const server = startAgenttool(['workspace', root, '--http', '127.0.0.1:0', ...flags], {
    env: { HOME: home, AGENTTOOL_TEST_SERVER_SECRET: SECRET_VALUE, ...env },
  });
  let stderr = '';
  server.process.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [, url] = (await server.waitForStderr(/over Streamable HTTP at (\S+)/)) as [string, string];
  const remote = await connectMcp({ transport: { url } });
  const served: Served = {
    url,
    pid: server.process.pid!,
    remote,
    stderr: () => stderr,
    stop: async () => {
      await remote.close();
      server.process.kill('SIGTERM');
      await server.done;
    },
  };
  opened.push(served);
  return served;
}

let calls = 0;
async function bash(served: Served, command: string, extra: object = {}): Promise<string> {
  const tool = served.remote.tools().find((t) => t.name === 'bash') as Tool;
  const call = { id: `call_${++calls}`, args: JSON.stringify({ command, ...extra }) };
  return outputText((await tool.execute(call, createContext({ call }))).output);
}

/** A temporary $HOME with the credentials a server's user typically has. */
function homeWithCredentials(): string {
  const home = tempDir();
  const files: Record<string, string> = {
    '.ssh/id_rsa': 'PRIVATE-SSH-KEY',
    '.aws/credentials': 'AWS-SECRET-KEY',
    '.git-credentials': 'https://user:GIT-TOKEN@example.com',
    '.npmrc': '//registry.npmjs.org/:_authToken=NPM-TOKEN',
    '.config/gcloud/credentials.db': 'GCLOUD-TOKEN',
    '.kube/config': 'KUBE-TOKEN',
    '.docker/config.json': 'DOCKER-TOKEN',
    '.netrc': 'machine example.com password NETRC-TOKEN',
    '.vault-token': 'VAULT-TOKEN',
    '.pgpass': 'localhost:5432:db:user:PGPASS-TOKEN',
    '.claude/.credentials.json': '{"claudeAiOauth":{"accessToken":"CLAUDE-OAUTH-TOKEN"}}',
    '.claude.json': '{"primaryApiKey":"CLAUDE-API-KEY"}',
    '.bash_history': 'export GITHUB_TOKEN=HISTORY-TOKEN',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), content);
  }
  return home;
}

/** A loopback HTTP listener that counts what reaches it. */
async function listener(): Promise<{ port: number; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits: () => hits, server };
}

const servers: Server[] = [];
const bystanders: ChildProcess[] = [];

beforeAll(() => ensureBuilt(), 300_000);

afterAll(async () => {
  await Promise.all(opened.splice(0).map((s) => s.stop().catch(() => undefined)));
  for (const s of servers) s.close();
  for (const p of bystanders) p.kill('SIGKILL');
  killChildren();
});

describe('the served bash tool in its sandbox', () => {
  let root: string;
  let home: string;
  let served: Served;

  beforeAll(async () => {
    root = tempDir();
    home = homeWithCredentials();
    served = await serveWorkspace(root, home);
  }, 60_000);

  it('says at start how it is confined', () => {
    expect(served.stderr()).toMatch(/sandbox: bubblewrap; writable: .*; network: none/);
    expect(served.stderr()).toMatch(/limits per shell: 1024 processes \((cgroup|rlimit)\)/);
  });

  it('works in the workspace, and keeps its state between calls', async () => {
    expect(
      await bash(served, 'mkdir -p sub && cd sub && echo hello > greeting && export WHO=me'),
    ).toBe('(no output)');
    expect(await bash(served, 'pwd; cat greeting; echo $WHO')).toBe(
      `${join(root, 'sub')}\nhello\nme\n`,
    );
    expect(readFileSync(join(root, 'sub', 'greeting'), 'utf8')).toBe('hello\n');
    // Its private temporary folder is writable, and nobody else's.
    expect(await bash(served, 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"')).toBe('t\n');
  });

  it('cannot write outside the workspace: /tmp, $HOME, or this checkout', async () => {
    const name = `escape-${randomBytes(6).toString('hex')}`;
    for (const dir of [tmpdir(), home, ROOT]) {
      const output = await bash(served, `echo x > ${join(dir, name)}`);
      expect(output).toMatch(/Read-only file system|Permission denied/);
      expect(existsSync(join(dir, name))).toBe(false);
    }
  });

  it('cannot plant in a repository it makes what git on the host would run', async () => {
    const marker = join(tempDir(), 'ran');
    const made = join(root, 'made');
    const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n' > made/.git/hooks/pre-commit`;
    expect(
      await bash(
        served,
        `cd ${root} && git init -q made && git -C made config core.fsmonitor "touch ${marker}" && ${hook} && chmod +x made/.git/hooks/pre-commit && echo made`,
      ),
    ).toBe(
      'made\n[disabled, since git or an agent on the host would run them outside the sandbox: made/.git/hooks/pre-commit: a hook, renamed made/.git/hooks/pre-commit.disabled; made/.git/config: core.fsmonitor, moved to made/.git/config.disabled]',
    );
    const hostGit = (...args: string[]) =>
      spawnSync('git', args, {
        cwd: made,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    hostGit('status');
    hostGit('commit', '-q', '--allow-empty', '-m', 'x');
    expect(existsSync(marker)).toBe(false);
    // A command left in the background adds one after its call: undone when the shell
    // restarts, and told with the next call.
    await bash(served, `(sleep 0.3; git -C ${made} config core.pager "touch ${marker}") &`);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const restart = served.remote.tools().find((t) => t.name === 'restart') as Tool;
    const call = { id: `call_${++calls}`, args: '{}' };
    await restart.execute(call, createContext({ call }));
    expect(await bash(served, 'true')).toBe(
      '[disabled, since git or an agent on the host would run them outside the sandbox: made/.git/config: core.pager, moved to made/.git/config.disabled-2]',
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("cannot leave an agent's settings one level down for it to run on the host", async () => {
    const made = join(root, 'pkg', '.claude');
    expect(
      await bash(
        served,
        `cd ${root} && mkdir -p pkg/.claude && echo '{"hooks":{}}' > pkg/.claude/settings.json && echo made`,
      ),
    ).toBe(
      "made\n[disabled, since git or an agent on the host would run them outside the sandbox: pkg/.claude: an agent's settings made by a command, moved to pkg/.claude.disabled]",
    );
    expect(existsSync(made)).toBe(false);
    expect(readFileSync(join(root, 'pkg', '.claude.disabled', 'settings.json'), 'utf8')).toBe(
      '{"hooks":{}}\n',
    );
  });

  it('undoes what a command left running adds between calls, within seconds, and tells it once', async () => {
    const marker = join(tempDir(), 'ran');
    const later = join(root, 'later');
    await bash(
      served,
      `cd ${root} && (sleep 0.3; git init -q later; git -C later config core.fsmonitor "touch ${marker}") > /dev/null 2>&1 &`,
    );
    // No call comes: the guard's own checks between commands find it.
    const moved = join(later, '.git', 'config.disabled');
    for (let waited = 0; !existsSync(moved) && waited < 20_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(existsSync(moved)).toBe(true);
    spawnSync('git', ['status'], { cwd: later });
    expect(existsSync(marker)).toBe(false);
    // Told with the next call, once, however many checks ran meanwhile.
    expect(await bash(served, 'true')).toBe(
      '[disabled, since git or an agent on the host would run them outside the sandbox: later/.git/config: core.fsmonitor, moved to later/.git/config.disabled]',
    );
    expect(await bash(served, 'true')).toBe('(no output)');
  }, 30_000);

  it("cannot read the server user's credentials", async () => {
    const output = await bash(
      served,
      'for f in ~/.ssh/id_rsa ~/.aws/credentials ~/.git-credentials ~/.npmrc ~/.config/gcloud/credentials.db ~/.kube/config ~/.docker/config.json ~/.netrc ~/.vault-token ~/.pgpass ~/.claude/.credentials.json ~/.claude.json ~/.bash_history; do cat "$f"; done 2>&1; ls -a ~/.ssh 2>&1',
    );
    for (const token of [
      'PRIVATE-SSH-KEY',
      'AWS-SECRET',
      'GIT-TOKEN',
      'NPM-TOKEN',
      'GCLOUD',
      'KUBE',
      'DOCKER-TOKEN',
      'NETRC',
      'VAULT-TOKEN',
      'PGPASS-TOKEN',
      'CLAUDE-OAUTH-TOKEN',
      'CLAUDE-API-KEY',
      'HISTORY-TOKEN',
    ]) {
      expect(output).not.toContain(token);
    }
    expect(output).toMatch(/No such file or directory|Permission denied/);
  });

  it("cannot read the server's environment, directly or through /proc", async () => {
    const output = await bash(
      served,
      `echo "[\${AGENTTOOL_TEST_SERVER_SECRET-unset}]"; cat /proc/${served.pid}/environ 2>&1 | head -c 200; echo; grep -l ${SECRET_VALUE} /proc/[0-9]*/environ 2>/dev/null | wc -l`,
    );
    expect(output).not.toContain(SECRET_VALUE);
    expect(output).toMatch(/^\[unset\]\ncat: .*No such file or directory\n\n0\n$/);
  });

  it('cannot see or signal the server, or any other process of this user', async () => {
    const bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
    bystanders.push(bystander);
    const output = await bash(
      served,
      `kill -9 ${served.pid}; echo "server $?"; kill -9 ${bystander.pid}; echo "bystander $?"; ls /proc | grep -c '^[0-9]'`,
    );
    expect(output).toMatch(/server 1\n/);
    expect(output).toMatch(/bystander 1\n/);
    // Its own PID namespace: a handful of processes, not the host's.
    expect(Number(output.trim().split('\n').pop())).toBeLessThan(20);
    expect(() => process.kill(served.pid, 0)).not.toThrow();
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
  });

  it('cannot open a Unix socket, to a daemon of the host or its own', async () => {
    const output = await bash(
      served,
      `python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("/run/dbus/system_bus_socket")' 2>&1 | tail -1`,
    );
    expect(output).toMatch(/PermissionError|Operation not permitted/);
  });

  it('cannot make a set-user-ID file or give one file capabilities, which the host would honour', async () => {
    const output = await bash(
      served,
      [
        'cp /bin/true setid; chmod 4755 setid; echo "chmod $?"; chmod g+s setid; echo "g+s $?"',
        `python3 -c 'import os; os.open("setid-made", os.O_CREAT | os.O_WRONLY, 0o4755)' 2>&1 | tail -1`,
        `python3 -c 'import os; os.setxattr("setid", "security.capability", bytes(20))' 2>&1 | tail -1`,
        // What a command needs of modes and copies still works.
        'chmod 750 setid; echo "plain $?"; cp -a setid copy; echo "cp -a $?"; stat -c %a copy',
      ].join('\n'),
    );
    expect(output).toMatch(/Operation not permitted\nchmod 1\n/);
    expect(output).toMatch(/g\+s 1\n/);
    expect(output).toMatch(/PermissionError: \[Errno 1\] Operation not permitted: 'setid-made'/);
    expect(output).toMatch(/OSError: \[Errno 95\] Operation not supported: 'setid'/);
    expect(output).toMatch(/plain 0\ncp -a 0\n750\n$/);
    expect(statSync(join(root, 'setid')).mode & 0o7777).toBe(0o750);
    expect(existsSync(join(root, 'setid-made'))).toBe(false);
  });

  it("cannot write a home folder's start-up files and hidden entries where the workspace is that folder", async () => {
    const own = homeWithCredentials();
    mkdirSync(join(own, '.config', 'git'), { recursive: true });
    writeFileSync(join(own, '.config', 'git', 'config'), '');
    mkdirSync(join(own, '.local', 'bin'), { recursive: true });
    // Settings and tools the user's programs run, beyond any list of names: a host's MCP
    // configuration, what .bashrc sources, what Python runs at its start.
    mkdirSync(join(own, '.config', 'Claude'), { recursive: true });
    mkdirSync(join(own, '.cargo'));
    writeFileSync(join(own, '.cargo', 'env'), '');
    mkdirSync(join(own, '.local', 'lib'));
    // The work: what is at the top already.
    mkdirSync(join(own, 'projects'));
    writeFileSync(join(own, 'notes.txt'), '');
    const inHome = await serveWorkspace(own, own);
    const output = await bash(
      inHome,
      [
        'echo x > .zshenv; echo "zshenv $?"',
        'echo x > .config/git/config; echo "git $?"',
        'echo x > .local/bin/ls; echo "bin $?"',
        'echo x > .config/Claude/claude_desktop_config.json; echo "host $?"',
        'echo x > .cargo/env; echo "cargo $?"',
        'echo x > .local/lib/evil.pth; echo "pth $?"',
        'mkdir -p projects/app && echo x > projects/app/notes.txt; echo "project $?"',
        'echo x > notes.txt; echo "notes $?"',
        // A hidden name missing at the top, which the user's programs would trust (the
        // credentials' folders are the sandbox's own empty ones: never the host's).
        'mkdir -p .ssh && echo key >> .ssh/authorized_keys',
        'mkdir -p .aws && echo x > .aws/config',
        'echo x > .vimrc; echo "vim $?"',
        'mkdir -p .ipython/profile_default/startup && echo x > .ipython/profile_default/startup/a.py; echo "ipython $?"',
        // The top stays read-only: nothing new is made there, hidden or not.
        'mkdir fresh; echo "fresh $?"',
      ].join('\n'),
    );
    expect(output).toMatch(/zshenv 1\n/);
    expect(output).toMatch(/git 1\n/);
    expect(output).toMatch(/bin 1\n/);
    expect(output).toMatch(/host 1\n/);
    expect(output).toMatch(/cargo 1\n/);
    expect(output).toMatch(/pth 1\n/);
    expect(output).toMatch(/project 0\n/);
    expect(output).toMatch(/notes 0\n/);
    expect(output).toMatch(/vim 1\n/);
    expect(output).toMatch(/ipython 1\n/);
    expect(output).toMatch(/fresh 1\n$/);
    expect(readFileSync(join(own, 'notes.txt'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(own, 'projects', 'app', 'notes.txt'), 'utf8')).toBe('x\n');
    for (const made of ['.ssh/authorized_keys', '.aws/config', '.vimrc', '.ipython', 'fresh']) {
      expect(existsSync(join(own, made))).toBe(false);
    }
    for (const path of [
      '.zshenv',
      '.config/git/config',
      '.local/bin/ls',
      '.config/Claude/claude_desktop_config.json',
      '.cargo/env',
      '.local/lib/evil.pth',
    ]) {
      const at = join(own, path);
      expect(existsSync(at) ? readFileSync(at, 'utf8') : '').toBe('');
    }
    await inHome.stop();
  });

  // A held file that is missing was stood in for with /dev/null on a mount without
  // devices, which no one may open: git took ~/.gitconfig so for a fatal error. The
  // home's top is read-only now, and nothing stands in.
  it('runs git in a home folder workspace without a .gitconfig, with the XDG one or none', async () => {
    const own = homeWithCredentials();
    const inHome = await serveWorkspace(own, own);
    mkdirSync(join(own, 'proj'));
    const script = [
      'git init -q proj && cd proj && git -c user.email=a@b.c -c user.name=a commit --allow-empty -qm one; echo "commit $?"',
      'git log --oneline | wc -l',
      'git config --global user.name; echo "name $?"',
    ].join('\n');
    const without = await bash(inHome, script);
    expect(without).toMatch(/^commit 0\n1\n/);
    expect(without).toMatch(/\nname 1\n$/);
    await inHome.stop();
    mkdirSync(join(own, '.config', 'git'), { recursive: true });
    writeFileSync(join(own, '.config', 'git', 'config'), '[user]\n\tname = From XDG\n');
    rmSync(join(own, 'proj'), { recursive: true, force: true });
    mkdirSync(join(own, 'proj'));
    const withXdg = await serveWorkspace(own, own);
    const found = await bash(withXdg, script);
    expect(found).toMatch(/^commit 0\n1\nFrom XDG\nname 0\n$/);
    // A git isolated by its own HOME writes its own global file.
    const isolated = await bash(
      withXdg,
      'H=$(mktemp -d) && HOME=$H git config --global user.name x; echo "isolated $?"',
    );
    expect(isolated).toBe('isolated 0\n');
    await withXdg.stop();
    expect(existsSync(join(own, '.gitconfig'))).toBe(false);
  });

  it('cannot make a user namespace of its own (unshare -r)', async () => {
    const output = await bash(served, 'unshare -r id -u; echo "status $?"');
    expect(output).toMatch(/status [1-9]/);
    expect(output).not.toMatch(/^0$/m);
  });

  it('reaches nothing on the network, the host loopback included', async () => {
    const http = await listener();
    servers.push(http.server);
    const tcp = createTcpServer((socket) => socket.end());
    let tcpHits = 0;
    tcp.on('connection', () => (tcpHits += 1));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const tcpPort = (tcp.address() as AddressInfo).port;
    try {
      const output = await bash(
        served,
        `curl -s -m 5 -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:${http.port}/; (exec 3<>/dev/tcp/127.0.0.1/${tcpPort}) 2>&1 | head -1; echo done`,
      );
      expect(output).not.toContain('reached');
      expect(output).toMatch(/^(000|403)\n/);
      expect(http.hits()).toBe(0);
      expect(tcpHits).toBe(0);
    } finally {
      tcp.close();
    }
  });
});

describe('the network allow-list', () => {
  it('lets through exactly the hosts it names', async () => {
    const allowed = await listener();
    const other = await listener();
    servers.push(allowed.server, other.server);
    const served = await serveWorkspace(tempDir(), homeWithCredentials(), [
      '--allow-network',
      `127.0.0.1:${allowed.port}`,
    ]);
    const output = await bash(
      served,
      `curl -s -m 5 http://127.0.0.1:${allowed.port}/; echo; curl -s -m 5 -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:${other.port}/; curl -s -m 5 -o /dev/null -w "%{http_code}\\n" http://localhost:${allowed.port}/`,
    );
    expect(output).toBe('reached\n403\n403\n');
    expect(allowed.hits()).toBe(1);
    expect(other.hits()).toBe(0);
    expect(served.stderr()).toContain(`network: only 127.0.0.1:${allowed.port}`);
  }, 60_000);
});

describe('the limits', () => {
  it('cap the processes and the memory of a shell', async () => {
    const served = await serveWorkspace(tempDir(), homeWithCredentials(), [
      '--max-processes',
      '40',
      '--max-memory',
      '96M',
    ]);
    expect(served.stderr()).toMatch(
      /limits per shell: 40 processes \((cgroup|rlimit)\), 96 MiB memory/,
    );
    // Python forks without bash's retries, and says when the kernel refuses.
    const forks = await bash(
      served,
      [
        "python3 -c 'import os, time",
        'pids = []',
        'try:',
        '    for i in range(100):',
        '        pid = os.fork()',
        '        if pid == 0:',
        '            time.sleep(30)',
        '            os._exit(0)',
        '        pids.append(pid)',
        'except OSError as e:',
        '    print("refused", e.errno)',
        'print("forked", len(pids))',
        'for p in pids:',
        "    os.kill(p, 9)'",
      ].join('\n'),
    );
    const heldBy = /limits per shell: 40 processes \((cgroup|rlimit)\)/.exec(served.stderr())?.[1];
    // Where a cgroup holds the cap, the result says the cap refused them (it counts).
    expect(forks).toMatch(
      heldBy === 'cgroup'
        ? /^refused 11\nforked \d+\n\[\d+ new process(es were| was) refused: the shell's processes reached their cap of 40 at once; end background jobs no longer needed\]$/
        : /^refused 11\nforked \d+\n$/,
    );
    expect(Number(/forked (\d+)/.exec(forks)?.[1])).toBeLessThan(40);
    const memory = await bash(
      served,
      'python3 -c \'x = bytearray(200 * 1024 * 1024); print("held", len(x))\'',
    );
    expect(memory).not.toMatch(/^held \d+/m);
    expect(memory).toMatch(/MemoryError|Killed|exit status 137/);
    if (/exit status 137/.test(memory) && heldBy === 'cgroup') {
      expect(memory).toContain(
        "killed for memory: the shell's processes reached their cap, 96 MiB in all]",
      );
    }
    // The shell is still there after what its commands hit.
    expect(await bash(served, 'echo alive')).toBe('alive\n');
  }, 60_000);
});

describe('the escape hatch', () => {
  it('is absent by default, and when offered runs a call outside with the same state', async () => {
    const root = tempDir();
    const plain = await serveWorkspace(root, homeWithCredentials());
    const plainBash = plain.remote.tools().find((t) => t.name === 'bash')!;
    expect(plainBash.parameters?.properties).not.toHaveProperty('dangerously_disable_sandbox');

    const home = homeWithCredentials();
    const served = await serveWorkspace(tempDir(), home, ['--allow-unsandboxed-commands']);
    expect(served.stderr()).toContain('escape hatch: on');
    await bash(served, 'mkdir -p d && cd d && export CARRIED=yes');
    const outside = await bash(served, 'pwd; echo $CARRIED; cat ~/.ssh/id_rsa; export BACK=1', {
      dangerously_disable_sandbox: true,
    });
    expect(outside).toMatch(/\/d\nyes\nPRIVATE-SSH-KEY$/);
    // Back inside: the state came back, the credentials are out of reach again.
    const inside = await bash(served, 'pwd; echo $BACK; cat ~/.ssh/id_rsa 2>&1');
    expect(inside).toMatch(/\/d\n1\n.*No such file or directory/s);
  }, 60_000);
});

describe('without a sandbox, on purpose', () => {
  it('says so at start, and the shell runs with the rights of the server', async () => {
    const home = homeWithCredentials();
    const served = await serveWorkspace(tempDir(), home, ['--no-sandbox']);
    expect(served.stderr()).toContain('sandbox: OFF (--no-sandbox)');
    expect(await bash(served, 'cat ~/.ssh/id_rsa')).toBe('PRIVATE-SSH-KEY');
  });
});

describe('when the sandbox cannot start', () => {
  it('refuses to serve, naming what is missing and how to get it', async () => {
    const ran = await runAgenttool(['workspace', tempDir()], {
      env: { PATH: join(tmpdir(), `no-such-dir-${randomBytes(4).toString('hex')}`) },
    });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain('bwrap (package bubblewrap)');
    expect(ran.stderr).toContain('scripts/setup-system.sh');
    expect(ran.stderr).toContain('--no-sandbox');
  });

  it('refuses to serve when bubblewrap cannot make its namespaces, with what it said', async () => {
    // A bwrap that fails as one does where user namespaces are off; the probe runs while
    // the app is built, and its failure still stops the start before anything is served.
    const bin = tempDir();
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const ran = await runAgenttool(['workspace', tempDir()], {
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}` },
    });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain(
      "agenttool: workspace: the shell's sandbox cannot start: bubblewrap cannot create user namespaces here (bwrap: setting up uid map: Permission denied)",
    );
    expect(ran.stderr).toContain('--no-sandbox');
    expect(ran.stderr).not.toContain('serving');
  });

  it('probes once serving where the probe passed before here; failing then, says so, forgets, and bash refuses', async () => {
    // A bwrap that runs the real one until a flag file exists, then fails as one does
    // where user namespaces are off: a change the remembered conditions cannot see.
    const bin = tempDir();
    const flag = join(tempDir(), 'user-namespaces-off');
    const real = ['/usr/bin/bwrap', '/bin/bwrap'].find((path) => existsSync(path))!;
    writeFileSync(
      join(bin, 'bwrap'),
      `#!/bin/sh\nif [ -e ${flag} ]; then echo "bwrap: setting up uid map: Permission denied" >&2; exit 1; fi\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    const home = tempDir();
    // The cache folder named, whatever the runner's environment says.
    const env = {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      XDG_CACHE_HOME: join(home, '.cache'),
    };
    const memory = join(home, '.cache/agenttool/sandbox-probe');

    // The first start probes before it serves, and remembers that it passed.
    const first = await serveWorkspace(tempDir(), home, [], env);
    expect(readFileSync(memory, 'utf8')).toContain(`bwrap ${join(bin, 'bwrap')} `);
    expect(await bash(first, 'echo inside')).toBe('inside\n');
    await first.stop();

    // The next serves at once, then probes: now it fails.
    writeFileSync(flag, '');
    const second = await serveWorkspace(tempDir(), home, [], env);
    expect(second.remote.tools().map((tool) => tool.name)).toContain('bash');
    await waitFor(() => second.stderr().includes('found once serving'));
    expect(second.stderr()).toMatch(
      /agenttool: workspace: the shell's sandbox cannot start: bubblewrap cannot create user namespaces here \(bwrap: setting up uid map: Permission denied\);.* \(found once serving, though it passed here before: bash will not start\)\n/,
    );
    expect(existsSync(memory)).toBe(false);
    await expect(bash(second, 'echo inside')).rejects.toThrow(
      /bubblewrap cannot create user namespaces here \(bwrap: setting up uid map: Permission denied\)/,
    );
    await second.stop();

    // The one after probes before serving again, and refuses to.
    const third = await runAgenttool(['workspace', tempDir()], { env: { HOME: home, ...env } });
    expect(third.code).toBe(3);
    expect(third.stderr).not.toContain('serving');
  }, 60_000);
});

/** Resolves once `check()` holds, checking every 20 ms; rejects after 20 s. */
async function waitFor(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !check();) {
    if (Date.now() > deadline) throw new Error('waited 20 s in vain');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
