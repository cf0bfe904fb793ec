// The app the scale benchmark serves: one tool that spends about a millisecond of CPU
// (hashing), as a tool that does real work would, and says so.
import { createHash } from 'node:crypto';
import { Tool } from 'agenttool';
import { Module } from 'agenttool/di';

const BLOCK = Buffer.alloc(64 * 1024, 7);

@Tool({ name: 'work', description: 'Hash 1 MiB and return the digest.' })
export class WorkTool {
  execute(): string {
    const hash = createHash('sha256');
    for (let i = 0; i < 16; i++) hash.update(BLOCK);
    return hash.digest('hex').slice(0, 16);
  }
}

@Module({ tools: [WorkTool] })
export class ScaleBenchModule {}
