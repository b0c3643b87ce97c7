/**
 * `npm start`'s own settings parse with the shared parseEnv: every one of them must stay a known
 * RAILYARD_* name (a dropped KNOWN_VARIABLES entry stops npm start as an unknown setting), bad values
 * are named, and the stop waits longer than the worker's own shutdown grace.
 */
import { ConfigError } from '../../../platform/env';
import { appGraceMs, loadStartConfig, stopWithinMs } from '../../../scripts/lib/start-config';

it('accepts every setting npm start reads', () => {
  const cfg = loadStartConfig({
    RAILYARD_DATA_DIR: '/tmp/x',
    RAILYARD_API_PORT: '18080',
    RAILYARD_DEV_TEMPORAL_PORT: '17233',
    RAILYARD_DEV_TEMPORAL_UI_PORT: '18233',
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '5',
  });
  expect(cfg.RAILYARD_DEV_TEMPORAL_PORT).toBe(17233);
  expect(appGraceMs(cfg)).toBe(15_000);
  expect(stopWithinMs(cfg)).toBeGreaterThan(appGraceMs(cfg));
});

it('defaults to the worker default grace (30 s) and waits longer than it', () => {
  const cfg = loadStartConfig({});
  expect(cfg.RAILYARD_DEV_TEMPORAL_PORT).toBe(7233);
  expect(appGraceMs(cfg)).toBeGreaterThan(30_000);
});

it('names a bad value and an unknown setting', () => {
  expect(() => loadStartConfig({ RAILYARD_DEV_TEMPORAL_PORT: 'x' })).toThrow(
    /RAILYARD_DEV_TEMPORAL_PORT="x" is invalid/,
  );
  expect(() => loadStartConfig({ RAILYARD_DEV_TEMPORAL_PRT: '1' })).toThrow(ConfigError);
});
