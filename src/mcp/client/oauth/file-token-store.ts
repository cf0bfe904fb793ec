import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { AgentToolError, errorMessage, isJsonObject } from '../../../core';
import { type StoredGrant, type TokenKey, tokenKeyId, type TokenStore } from './token-store';

interface FileShape {
  version: 1;
  grants: Record<string, StoredGrant>;
}

/**
 * A {@link TokenStore} in one JSON file, readable only by its owner (mode 0600). Each
 * save rewrites the file through a temporary file and a rename, so a crash leaves either
 * the old grants or the new ones; saves from this process are applied one at a time.
 */
export class FileTokenStore implements TokenStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {
    if (typeof file !== 'string' || file === '') {
      throw new AgentToolError('CONNECTION', 'mcp: FileTokenStore needs the path of its file');
    }
  }

  async load(key: TokenKey): Promise<StoredGrant | undefined> {
    const contents = await this.read();
    return contents.grants[tokenKeyId(key)];
  }

  save(key: TokenKey, grant: StoredGrant): Promise<void> {
    const run = this.queue.then(async () => {
      const contents = await this.read();
      contents.grants[tokenKeyId(key)] = JSON.parse(JSON.stringify(grant)) as StoredGrant;
      const temp = `${this.file}.${process.pid}.tmp`;
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.writeFile(temp, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
      await fs.rename(temp, this.file);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<FileShape> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, grants: {} };
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new AgentToolError(
        'CONNECTION',
        `mcp: token file ${this.file} is not valid JSON (${errorMessage(error)}); fix or remove it`,
      );
    }
    if (!isJsonObject(parsed) || parsed['version'] !== 1 || !isJsonObject(parsed['grants'])) {
      throw new AgentToolError(
        'CONNECTION',
        `mcp: token file ${this.file} is not a token store file ({"version":1,"grants":{...}}); fix or remove it`,
      );
    }
    return parsed as unknown as FileShape;
  }
}
