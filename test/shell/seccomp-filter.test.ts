/**
 * The seccomp filter a sandboxed shell runs under, judged by a small classic-BPF
 * evaluator on the calls it is about: the program the kernel would run, instruction by
 * instruction, for each architecture it knows. (That bubblewrap loads it and a command
 * meets it is in sandbox.test.ts, and below where its mounts come from a file.)
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell } from 'agenttool/shell';
import { setIdFilter } from '../../src/shell/seccomp-filter';

const ALLOW = 'allow';
const errno = (code: number): string => `errno ${code}`;
const EPERM = errno(1);
const ENOSYS = errno(38);
const EOPNOTSUPP = errno(95);

const ARCH = { x64: 0xc000003e, i386: 0x40000003, arm64: 0xc00000b7, arm: 0x40000028 };

/** What the program answers for a call `nr` of `arch` with `args` (their low 32 bits). */
function run(program: Buffer, arch: number, nr: number, args: number[] = []): string {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((value, i) => data.writeUInt32LE(value >>> 0, 16 + 8 * i));
  let accumulator = 0;
  for (let pc = 0, steps = 0; pc < program.length / 8 && steps < 10_000; steps++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // ld [k]
        accumulator = data.readUInt32LE(k);
        pc += 1;
        break;
      case 0x15: // jeq #k
        pc += 1 + (accumulator === k ? jt : jf);
        break;
      case 0x45: // jset #k
        pc += 1 + ((accumulator & k) !== 0 ? jt : jf);
        break;
      case 0x06: // ret #k
        if (k === 0x7fff0000) return ALLOW;
        if (k >>> 16 === 0x0005) return errno(k & 0xffff);
        return `ret ${k.toString(16)}`;
      default:
        throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('the program ran off its end');
}

describe('the set-ID filter', () => {
  const x64 = setIdFilter('x64', 'linux')!;
  const arm64 = setIdFilter('arm64', 'linux')!;

  it('refuses on x86-64 a mode with the set-user-ID or set-group-ID bit, in each call that takes one', () => {
    const cases: [string, number, number][] = [
      ['open', 2, 2],
      ['creat', 85, 1],
      ['openat', 257, 3],
      ['mknod', 133, 1],
      ['mknodat', 259, 2],
      ['chmod', 90, 1],
      ['fchmod', 91, 1],
      ['fchmodat', 268, 2],
      ['fchmodat2', 452, 2],
    ];
    for (const [, nr, arg] of cases) {
      const args = (mode: number): number[] =>
        Array.from({ length: 4 }, (_, i) => (i === arg ? mode : 0o7777 & ~0o6000));
      expect(run(x64, ARCH.x64, nr, args(0o4755))).toBe(EPERM);
      expect(run(x64, ARCH.x64, nr, args(0o2775))).toBe(EPERM);
      expect(run(x64, ARCH.x64, nr, args(0o100755))).toBe(ALLOW);
      // The bits in another argument (flags, a descriptor) are not a mode.
      const elsewhere = Array.from({ length: 4 }, (_, i) => (i === arg ? 0o644 : 0o6000));
      expect(run(x64, ARCH.x64, nr, elsewhere)).toBe(ALLOW);
    }
  });

  it('judges the mode of an open only when it makes a file (O_CREAT, O_TMPFILE)', () => {
    const O_CREAT = 0o100;
    const O_TMPFILE = 0o20000000 | 0o200000;
    // openat(dirfd, path, flags, mode) on x86-64, then arm64.
    expect(run(x64, ARCH.x64, 257, [0, 0, 0, 0o4755])).toBe(ALLOW);
    expect(run(x64, ARCH.x64, 257, [0, 0, O_CREAT, 0o4755])).toBe(EPERM);
    expect(run(x64, ARCH.x64, 257, [0, 0, O_TMPFILE, 0o2700])).toBe(EPERM);
    expect(run(x64, ARCH.x64, 2, [0, 0o2, 0o4755])).toBe(ALLOW); // open(path, O_RDWR, mode)
    expect(run(x64, ARCH.x64, 2, [0, O_CREAT | 0o1, 0o4755])).toBe(EPERM);
    expect(run(arm64, ARCH.arm64, 56, [0, 0, 0, 0o4755])).toBe(ALLOW);
    expect(run(arm64, ARCH.arm64, 56, [0, 0, O_CREAT, 0o4755])).toBe(EPERM);
  });

  it('is made for Linux only (bubblewrap loads it; macOS has no seccomp)', () => {
    expect(setIdFilter('arm64', 'darwin')).toBeUndefined();
    expect(setIdFilter('x64', 'darwin')).toBeUndefined();
    expect(setIdFilter('x64', 'linux')).toBeInstanceOf(Buffer);
  });

  it('refuses on x86-64 setting extended attributes, openat2 and io_uring, and x32 calls; allows the rest', () => {
    for (const nr of [188, 189, 190, 463]) expect(run(x64, ARCH.x64, nr)).toBe(EOPNOTSUPP);
    expect(run(x64, ARCH.x64, 437)).toBe(ENOSYS);
    expect(run(x64, ARCH.x64, 425)).toBe(ENOSYS);
    expect(run(x64, ARCH.x64, 0x40000000 | 90, [0, 0o755])).toBe(ENOSYS);
    // read, write, getxattr, removexattr, mkdir, fchown, execve
    for (const nr of [0, 1, 191, 197, 83, 93, 59])
      expect(run(x64, ARCH.x64, nr, [0o6777, 0o6777])).toBe(ALLOW);
  });

  it('judges the 32-bit calls of an x86-64 process by their own numbers', () => {
    expect(run(x64, ARCH.i386, 15, [0, 0o4755])).toBe(EPERM); // chmod
    expect(run(x64, ARCH.i386, 306, [0, 0, 0o2755])).toBe(EPERM); // fchmodat
    expect(run(x64, ARCH.i386, 295, [0, 0, 0o100, 0o4700])).toBe(EPERM); // openat, O_CREAT
    expect(run(x64, ARCH.i386, 15, [0, 0o755])).toBe(ALLOW);
    expect(run(x64, ARCH.i386, 226)).toBe(EOPNOTSUPP); // setxattr
    // 90 is select there, not chmod; 188 is getpmsg, not setxattr.
    expect(run(x64, ARCH.i386, 90, [0, 0o4755])).toBe(ALLOW);
    expect(run(x64, ARCH.i386, 188)).toBe(ALLOW);
    expect(run(x64, ARCH.arm64, 0)).toBe(ENOSYS);
  });

  it('refuses the same on arm64, and the calls of any other architecture', () => {
    expect(run(arm64, ARCH.arm64, 53, [0, 0, 0o4755])).toBe(EPERM); // fchmodat
    expect(run(arm64, ARCH.arm64, 52, [0, 0o2755])).toBe(EPERM); // fchmod
    expect(run(arm64, ARCH.arm64, 56, [0, 0, 0o100, 0o4755])).toBe(EPERM); // openat, O_CREAT
    expect(run(arm64, ARCH.arm64, 33, [0, 0, 0o104755])).toBe(EPERM); // mknodat
    expect(run(arm64, ARCH.arm64, 452, [0, 0, 0o755])).toBe(ALLOW);
    for (const nr of [5, 6, 7, 463]) expect(run(arm64, ARCH.arm64, nr)).toBe(EOPNOTSUPP);
    expect(run(arm64, ARCH.arm64, 425)).toBe(ENOSYS);
    expect(run(arm64, ARCH.arm64, 63, [0o6777])).toBe(ALLOW); // read
    expect(run(arm64, ARCH.arm, 15, [0, 0o755])).toBe(ENOSYS);
  });

  it('is not made for an architecture it has no table for', () => {
    expect(setIdFilter('ppc64', 'linux')).toBeUndefined();
    expect(setIdFilter('ia32', 'linux')).toBeUndefined();
  });
});

describe('the set-ID filter in a sandboxed shell', () => {
  let work: string;
  const shells: Shell[] = [];
  beforeEach(() => {
    work = realpathSync(mkdtempSync(join(tmpdir(), 'set-id-')));
  });
  afterEach(async () => {
    await Promise.all(shells.splice(0).map((shell) => shell.close()));
    rmSync(work, { recursive: true, force: true });
  });

  it('holds where bubblewrap reads its mounts from a file (a command line past 128 KiB)', async () => {
    // A thousand folders kept from commands, with long names: the sandbox runtime passes
    // their mounts to bubblewrap through a file rather than on its command line.
    const hidden = Array.from({ length: 1000 }, (_, i) =>
      join(work, 'hidden', `${String(i).padStart(4, '0')}-${'x'.repeat(180)}`),
    );
    for (const dir of hidden) mkdirSync(dir, { recursive: true });
    const cwd = join(work, 'ws');
    mkdirSync(cwd);
    const shell = new Shell({ cwd, sandbox: { denyRead: hidden } });
    shells.push(shell);
    const result = await shell.run(
      `ls ${JSON.stringify(hidden[999])} | wc -l; cp /bin/true setid; chmod 4755 setid; echo "chmod $?"`,
    );
    expect(result.output).toMatch(/Operation not permitted\nchmod 1\n$/);
    expect(statSync(join(cwd, 'setid')).mode & 0o6000).toBe(0);
  }, 60_000);
});
