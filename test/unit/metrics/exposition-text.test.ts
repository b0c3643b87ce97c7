import { Gauge, Registry } from 'prom-client';
import { expositionText } from '../../../api/plugins/exposition-text';

test('not-a-number is written the way the text format spells it', async () => {
  const registry = new Registry();
  new Gauge({ name: 'lag_seconds', help: 'lag', registers: [registry] }).set(NaN);
  new Gauge({ name: 'ok_total', help: 'ok', registers: [registry] }).set(3);
  const text = await expositionText(registry);
  expect(text).toContain('lag_seconds NaN\n');
  expect(text).toContain('ok_total 3\n');
  expect(text).not.toMatch(/ Nan$/m);
});
