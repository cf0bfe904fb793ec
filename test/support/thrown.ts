import { AgentToolError, DecoratorError, ValidationError } from 'agenttool';

/** The message of the `ValidationError` that `run` throws; fails the test if it throws none. */
export function validationMessageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
  throw new Error('expected a ValidationError');
}

/**
 * The problems of the `DecoratorError` (an `AgentToolError` with code `INVALID_DECORATOR`)
 * that `run` throws; fails the test if it throws none.
 */
export function decoratorProblemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DecoratorError);
    expect(error).toBeInstanceOf(AgentToolError);
    expect((error as DecoratorError).code).toBe('INVALID_DECORATOR');
    return (error as DecoratorError).problems;
  }
  throw new Error('expected a DecoratorError');
}
