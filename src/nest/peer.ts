import { AgentToolError, errorMessage } from 'agenttool';

/**
 * Checks, when this entry is loaded and before anything else of it, that the NestJS
 * peers are there: `@nestjs/common` and `@nestjs/core`, which only an app using this
 * entry installs. Their absence is said plainly, with the command that fixes it.
 */
export function checkNestPeers(): void {
  for (const name of ['@nestjs/common', '@nestjs/core']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a peer, checked here
      require(name);
    } catch (error) {
      const missing = (error as { code?: unknown }).code === 'MODULE_NOT_FOUND';
      throw new AgentToolError(
        'MISSING_PEER',
        missing
          ? `agenttool/nest: the package "${name}" is not installed; it is a peer dependency of this entry: npm install @nestjs/common@12 @nestjs/core@12 rxjs`
          : `agenttool/nest: the package "${name}" could not be loaded (NestJS 12 is an ES module, which Node loads from CommonJS from 20.19 on): ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}
