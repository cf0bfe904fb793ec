/**
 * What a file tool says when the system refuses an operation for a reason the walk does
 * not check first: a read-only mount, or a path changed by a command while the call ran.
 * (The walk's own refusals, and the ordinary failures, are in file-root.test.ts.)
 */
import { describeFailure, type Op } from '../../src/workspace/file-operations';

function op(writes: boolean, path = 'src/a.txt'): Op {
  return { path, verb: writes ? 'write' : 'read', writes, root: '/srv/ws', links: 0 };
}

function failure(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: system message, open '/proc/self/fd/7/a.txt'`), {
    code,
  });
}

describe('a failed file operation', () => {
  it('says what the system meant, without its /proc path', () => {
    const cases: [Op, string, string][] = [
      [op(true), 'EROFS', 'cannot write "src/a.txt": the file system there is read-only'],
      [
        op(true),
        'ENOENT',
        'cannot write "src/a.txt": a folder on its way was removed while the call ran',
      ],
      [
        op(false),
        'ENOENT',
        'cannot read "src/a.txt": no such file under the workspace root "/srv/ws"',
      ],
      [
        op(true),
        'ENOTDIR',
        'cannot write "src/a.txt": a part of the path that should be a folder is a file',
      ],
      [
        op(false, 'lat\uFFFDn.txt'),
        'ENOENT',
        'cannot read "lat\uFFFDn.txt": no such file under the workspace root "/srv/ws": relative paths start there, not at the shell\'s working directory (give the absolute path, as `realpath FILE` prints it); the path holds U+FFFD (\uFFFD), which stands in for bytes that are not UTF-8 where a name was shown, and no name given here can hold those: rename the file in the shell (a glob matches it, e.g. mv lat?n.txt latin.txt)',
      ],
      [
        op(false, '/srv/ws/cafe\u0301.txt'),
        'ENOENT',
        'cannot read "/srv/ws/cafe\u0301.txt": no such file; the path holds letters Unicode spells two ways (é as one character, or as e and a combining accent), and the name on disk may use the other: find it in the shell with a glob (ls caf*), and rename it there to the spelling given here',
      ],
      [
        op(false),
        'EACCES',
        'cannot read "src/a.txt": permission denied: this server\'s user may not open it, or pass through a folder on its way',
      ],
      [
        op(false),
        'ELOOP',
        'cannot read "src/a.txt": a part of the path became a symbolic link while the call ran',
      ],
    ];
    for (const [operation, code, said] of cases) {
      const error = describeFailure(operation, failure(code));
      expect(error.message.startsWith(said)).toBe(true);
      expect(error.message).not.toContain('/proc');
      expect(error.cause).toBeInstanceOf(Error);
    }
  });
});
