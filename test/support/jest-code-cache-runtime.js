/**
 * jest's runtime, with V8's code cache kept across the test files a jest worker runs.
 *
 * Why: jest gives every test file a fresh module registry, so a worker compiles the same few thousand
 * modules (Fastify, zod, pg, Temporal's protobufs, railyard itself) again for each of its ~90 files.
 * Compiling was about a sixth of an integration file's CPU (profiled: 12.8 of 85 CPU-s in
 * test/integration/flaky). Modules still run afresh in each file's own context: only V8's compiled
 * code is reused, never a module's state, so the isolation between files is jest's as before.
 *
 * Rule: a module's cache is taken after the test file that first loaded it has run (so it holds the
 * functions compiled lazily meanwhile, not only the top level) and is used only for the very same
 * source text; V8 refuses a cache made by another version or with other flags, and the module then
 * compiles as before. The cache lives in this worker's memory only: nothing is written to disk.
 */
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** filename -> { source, data } of a module compiled in an earlier test file of this worker. */
const cached = new Map();

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    /** Scripts compiled without a cache in this file, cached once the file has run. */
    this.compiledAfresh = [];
    const executor = this.executor;
    const compile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const vmContext = executor.environment.getVmContext();
      if (vmContext == null || executor.resolution.isCoreModule(filename)) return compile(source, filename);
      const params = executor.injectedModuleParameters;
      // The wrapper sits on a line of its own (lineOffset -1), so stack traces and source maps keep
      // the module's own line and column numbers.
      const wrapped = `({"Object.<anonymous>":function(${params.join(',')}){\n${source}\n}});`;
      const hit = cached.get(filename);
      const cachedData = hit && hit.source === source ? hit.data : undefined;
      let script;
      try {
        script = new vm.Script(wrapped, {
          filename,
          lineOffset: -1,
          cachedData,
          importModuleDynamically: (specifier, _script, importAttributes, ...rest) =>
            executor.dynamicImport(specifier, filename, vmContext, importAttributes, rest[0]),
        });
      } catch {
        // A syntax error, or ES module syntax jest's own path knows how to handle: let it.
        return compile(source, filename);
      }
      if (cachedData === undefined || script.cachedDataRejected)
        this.compiledAfresh.push({ script, filename, source });
      return script.runInContext(vmContext)['Object.<anonymous>'];
    };
  }

  teardown() {
    for (const { script, filename, source } of this.compiledAfresh) {
      try {
        cached.set(filename, { source, data: script.createCachedData() });
      } catch {
        /* no cache for this one: it compiles afresh next time */
      }
    }
    this.compiledAfresh = [];
    super.teardown();
  }
}

module.exports = CodeCacheRuntime;
