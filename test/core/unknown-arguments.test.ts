/** `refuseUnknownArguments`: a tool that refuses an argument it does not take, naming it. */
import { refuseUnknownArguments } from 'agenttool';

describe('refuseUnknownArguments', () => {
  it('refuses names it does not know, from the decoded value or else the text', () => {
    expect(() =>
      refuseUnknownArguments({ id: 'c', args: '{"path":"a","max_byte":3}' }, 'read_file', [
        'path',
        'max_bytes',
      ]),
    ).toThrow(
      'invalid arguments: read_file takes no "max_byte"; its arguments are path, max_bytes',
    );
    // The decoded value is what counts when the harness gave one.
    expect(() =>
      refuseUnknownArguments({ id: 'c', args: '{}', value: { x: 1, y: 2 } }, 'restart', []),
    ).toThrow('invalid arguments: restart takes no "x", "y"; it takes none');
    // Ignored names pass, and are not listed.
    expect(() =>
      refuseUnknownArguments(
        { id: 'c', args: '{"command":"ls","description":"d","cwd":"/"}' },
        'bash',
        ['command'],
        ['description'],
      ),
    ).toThrow('invalid arguments: bash takes no "cwd"; its arguments are command');
  });

  it('passes known names, no arguments, and leaves what is not an object to the decoding', () => {
    for (const args of ['', '{}', '{"path":"a"}', '[1]', 'null', '{not json']) {
      expect(() => refuseUnknownArguments({ id: 'c', args }, 'read_file', ['path'])).not.toThrow();
    }
  });
});
