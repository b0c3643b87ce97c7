/**
 * A route plugin with its name. Fastify names each plugin it registers (its plugin tree, avvio's "plugin
 * did not start in time" error) from the `fastify.display-name` symbol; failing that it searches every
 * module in `require.cache` for one exporting the plugin, twice per registration. railyard's route
 * plugins are closures that factories return, so that search never found one: it only cost a walk of
 * the module cache per plugin, which under jest (whose cache is a proxy) was 0.15 CPU-s for each test
 * file that builds the app, and the plugins were named by the first characters of their source.
 *
 * Rule: the name is the factory's, as written at the `register` call, given both as the display name
 * (Fastify) and as the function's own name (avvio's plugin tree, `printPlugins`); the plugin is
 * otherwise unchanged (encapsulated, as before: not `fastify-plugin`, which would lift its hooks into
 * the parent).
 */
const DISPLAY_NAME = Symbol.for('fastify.display-name');

export function namedPlugin<P extends object>(name: string, plugin: P): P {
  Object.defineProperty(plugin, DISPLAY_NAME, { value: name, configurable: true });
  Object.defineProperty(plugin, 'name', { value: name, configurable: true });
  return plugin;
}
