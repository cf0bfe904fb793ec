// Compiles an ES module of a dependency to CommonJS for Jest, whose module system
// cannot load ES modules before Node 24.9 (Node itself requires them from 20.19 on).
// TypeScript's transpiler does it with the module's own class semantics kept (native
// class fields, ES2022), which ts-jest's merged project options would change.
const { createHash } = require('node:crypto');
const ts = require('typescript');

const OPTIONS = {
  allowJs: true,
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: true,
  sourceMap: false,
};

module.exports = {
  process(source, filename) {
    // `import.meta.url` has no CommonJS form; the module's own file URL is what it means.
    const code = source.replaceAll(
      'import.meta.url',
      "require('node:url').pathToFileURL(__filename).href",
    );
    const { outputText } = ts.transpileModule(code, {
      compilerOptions: OPTIONS,
      fileName: filename,
    });
    return { code: outputText };
  },
  getCacheKey(source, filename) {
    return createHash('sha256')
      .update(`${ts.version}\0${JSON.stringify(OPTIONS)}\0${filename}\0${source}`)
      .digest('hex');
  },
};
