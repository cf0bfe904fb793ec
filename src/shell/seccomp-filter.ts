import { endianness } from 'node:os';

// A seccomp filter (classic BPF, as bubblewrap's `--seccomp` loads it) that keeps a
// sandboxed command from making what the host would run with more rights than the
// command's user: a set-user-ID or set-group-ID file (the command's files are the
// server user's on the host, root's when it runs as root) and a file capability
// (`security.capability`, which a command running as root may write in its namespace).

/** The system calls a filter judges on one architecture, by number. */
interface Calls {
  /** The `AUDIT_ARCH_*` value the kernel gives its calls. */
  readonly arch: number;
  /** Calls that take a file mode, with the index of that argument. */
  readonly withMode: readonly (readonly [nr: number, arg: number])[];
  /**
   * Opens, with the index of their flags and of their mode: the mode counts only with
   * `O_CREAT` or `O_TMPFILE` among the flags (a plain open may pass any mode, ignored).
   */
  readonly opens: readonly (readonly [nr: number, flags: number, mode: number])[];
  /** Calls refused whatever their arguments, with the errno they get. */
  readonly refused: readonly (readonly [nr: number, errno: number])[];
}

const EPERM = 1;
const ENOSYS = 38;
const EOPNOTSUPP = 95;

/** The set-user-ID and set-group-ID bits of a mode. */
const SET_ID_BITS = 0o6000;

/** The flags with which an open makes a file: `O_CREAT`, and `__O_TMPFILE` (x86 and arm64 alike). */
const MAKES_A_FILE = 0o100 | 0o20000000;

/**
 * Calls refused on every architecture, by their numbers there: setting an extended
 * attribute (the name is in memory a filter cannot read, so all of them: not supported,
 * as on a file system without them, which `cp -a` and `tar` pass over), `openat2` (its
 * mode is in a struct: not there, so callers fall back to `openat`) and io_uring, whose
 * operations (an open with a mode, setting an attribute) no filter sees.
 */
function refusedCalls(
  setxattr: number,
  lsetxattr: number,
  fsetxattr: number,
): readonly (readonly [number, number])[] {
  return [
    [setxattr, EOPNOTSUPP],
    [lsetxattr, EOPNOTSUPP],
    [fsetxattr, EOPNOTSUPP],
    [463, EOPNOTSUPP], // setxattrat
    [437, ENOSYS], // openat2
    [425, ENOSYS], // io_uring_setup
  ];
}

const X86_64: Calls = {
  arch: 0xc000003e,
  opens: [
    [2, 1, 2], // open
    [257, 2, 3], // openat
  ],
  withMode: [
    [85, 1], // creat
    [133, 1], // mknod
    [259, 2], // mknodat
    [90, 1], // chmod
    [91, 1], // fchmod
    [268, 2], // fchmodat
    [452, 2], // fchmodat2
  ],
  refused: refusedCalls(188, 189, 190),
};

/** The 32-bit calls an x86-64 process can make too (`int 0x80`). */
const I386: Calls = {
  arch: 0x40000003,
  opens: [
    [5, 1, 2], // open
    [295, 2, 3], // openat
  ],
  withMode: [
    [8, 1], // creat
    [14, 1], // mknod
    [297, 2], // mknodat
    [15, 1], // chmod
    [94, 1], // fchmod
    [306, 2], // fchmodat
    [452, 2], // fchmodat2
  ],
  refused: refusedCalls(226, 227, 228),
};

const AARCH64: Calls = {
  arch: 0xc00000b7,
  opens: [[56, 2, 3]], // openat
  withMode: [
    [33, 2], // mknodat
    [52, 1], // fchmod
    [53, 2], // fchmodat
    [452, 2], // fchmodat2
  ],
  refused: refusedCalls(5, 6, 7),
};

/** x32 calls on x86-64 carry this bit in their number: refused, none of ours needs them. */
const X32_BIT = 0x40000000;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of argument `i` (little-endian: the modes are 32-bit). */
const argLow = (i: number): number => 16 + 8 * i;

interface Instruction {
  readonly code: number;
  readonly k: number;
  /** Instructions skipped when the test holds, and when it does not. */
  readonly jt?: number;
  readonly jf?: number;
}

const load = (offset: number): Instruction => ({ code: BPF_LD_W_ABS, k: offset });
const ret = (value: number): Instruction => ({ code: BPF_RET_K, k: value });

/** The instructions judging a call whose number is loaded, for `calls`; then allowed. */
function judge(calls: Calls): Instruction[] {
  const out: Instruction[] = [];
  for (const [nr, flags, mode] of calls.opens) {
    out.push(
      { code: BPF_JEQ_K, k: nr, jt: 0, jf: 6 },
      load(argLow(flags)),
      { code: BPF_JSET_K, k: MAKES_A_FILE, jt: 0, jf: 3 },
      load(argLow(mode)),
      { code: BPF_JSET_K, k: SET_ID_BITS, jt: 0, jf: 1 },
      ret(RET_ERRNO | EPERM),
      ret(RET_ALLOW),
    );
  }
  for (const [nr, arg] of calls.withMode) {
    out.push(
      { code: BPF_JEQ_K, k: nr, jt: 0, jf: 4 },
      load(argLow(arg)),
      { code: BPF_JSET_K, k: SET_ID_BITS, jt: 0, jf: 1 },
      ret(RET_ERRNO | EPERM),
      ret(RET_ALLOW),
    );
  }
  for (const [nr, errno] of calls.refused) {
    out.push({ code: BPF_JEQ_K, k: nr, jt: 0, jf: 1 }, ret(RET_ERRNO | errno));
  }
  out.push(ret(RET_ALLOW));
  return out;
}

/**
 * The filter for this machine's architecture (`arch`, as `process.arch` names it), as
 * the bytes of its `struct sock_filter` array; undefined where it has no table (neither
 * x64 nor arm64, which the sandbox runtime's own seccomp helper supports too), and off
 * Linux (`platform`). It
 * refuses (EPERM) a change of mode, and a file made, with the set-user-ID or
 * set-group-ID bit, the calls {@link refusedCalls} names, and every call of an
 * architecture it does not know (ENOSYS: on arm64, 32-bit calls).
 */
export function setIdFilter(
  arch: string = process.arch,
  platform: NodeJS.Platform = process.platform,
): Buffer | undefined {
  // Linux's: bubblewrap loads it; macOS's sandbox has no seccomp.
  if (platform !== 'linux') return undefined;
  const native = arch === 'x64' ? X86_64 : arch === 'arm64' ? AARCH64 : undefined;
  if (native === undefined) return undefined;
  const nativeBody = judge(native);
  const compatBody = arch === 'x64' ? judge(I386) : [];
  const program: Instruction[] = [load(ARCH)];
  // After the arch checks (and the refusal of the others) come the native calls'
  // judgement, then the 32-bit ones'.
  if (compatBody.length > 0) {
    program.push(
      { code: BPF_JEQ_K, k: native.arch, jt: 2, jf: 0 },
      { code: BPF_JEQ_K, k: I386.arch, jt: 4 + nativeBody.length, jf: 0 },
    );
  } else {
    program.push({ code: BPF_JEQ_K, k: native.arch, jt: 1, jf: 0 });
  }
  program.push(ret(RET_ERRNO | ENOSYS), load(NR));
  if (arch === 'x64') {
    program.push({ code: BPF_JSET_K, k: X32_BIT, jt: 0, jf: 1 }, ret(RET_ERRNO | ENOSYS));
  }
  program.push(...nativeBody);
  if (compatBody.length > 0) program.push(load(NR), ...compatBody);
  return encode(program);
}

function encode(program: readonly Instruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  const little = endianness() === 'LE';
  program.forEach(({ code, k, jt = 0, jf = 0 }, i) => {
    const at = i * 8;
    if (little) {
      bytes.writeUInt16LE(code, at);
      bytes.writeUInt32LE(k >>> 0, at + 4);
    } else {
      bytes.writeUInt16BE(code, at);
      bytes.writeUInt32BE(k >>> 0, at + 4);
    }
    bytes.writeUInt8(jt, at + 2);
    bytes.writeUInt8(jf, at + 3);
  });
  return bytes;
}
