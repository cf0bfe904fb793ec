/** Placeholder until the decorators land: the class decorator `@Tool`. */
export function Tool(_options: { name: string; description?: string }): ClassDecorator {
  return () => undefined;
}
