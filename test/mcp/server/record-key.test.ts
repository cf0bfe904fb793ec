import { RECORD_META_KEY } from 'agenttool/mcp';
import { RECORD_META_KEY as CLIENT_RECORD_META_KEY } from '../../../src/mcp/client/record';

test('the server and the client spell the record _meta key the same, as the Go binding does', () => {
  expect(RECORD_META_KEY).toBe('io.github.christopherdavenport.agenttool/record');
  expect(CLIENT_RECORD_META_KEY).toBe(RECORD_META_KEY);
});
