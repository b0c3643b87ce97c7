/**
 * getQueue's kept answers (api/temporal/rendered-views.ts): reused only for the exact version of the
 * view they were built from, the least recently used dropped past the bound.
 */
import { createRenderedViews } from '../../../api/temporal/rendered-views';
import type { QueueView } from '../../../api/schemas/queue';

const view = (name: string) => ({ branch: name }) as unknown as QueueView;

test('an answer is reused for its own version only', () => {
  const views = createRenderedViews();
  views.keep('q', { generation: 'g1', revision: 5 }, view('five'));
  expect(views.get('q', { generation: 'g1', revision: 5 })).toEqual(view('five'));
  expect(views.get('q', { generation: 'g1', revision: 6 })).toBeUndefined();
  // A queue deleted and created again may count revisions from where the old one stood.
  expect(views.get('q', { generation: 'g2', revision: 5 })).toBeUndefined();
  expect(views.get('other', { generation: 'g1', revision: 5 })).toBeUndefined();
  views.keep('q', { generation: 'g1', revision: 6 }, view('six'));
  expect(views.get('q', { generation: 'g1', revision: 5 })).toBeUndefined();
  expect(views.get('q', { generation: 'g1', revision: 6 })).toEqual(view('six'));
});

test('past the bound the least recently used queue goes', () => {
  const views = createRenderedViews(2);
  const v = { generation: 'g', revision: 1 };
  views.keep('a', v, view('a'));
  views.keep('b', v, view('b'));
  expect(views.get('a', v)).toBeDefined();
  views.keep('c', v, view('c'));
  expect(views.get('b', v)).toBeUndefined();
  expect(views.get('a', v)).toBeDefined();
  expect(views.get('c', v)).toBeDefined();
});
