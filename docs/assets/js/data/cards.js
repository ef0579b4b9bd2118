// data/cards.js: which card partition holds a run: FNV-1a (32 bit) of the run id's UTF-8 bytes, modulo the
// number of partitions, as site_gen.data.dataset.card_part writes them (tests/site/test_cards.py runs both).
// In: a run id, the partition count. Out: the partition's index. Side effects: none.

const UTF8 = new TextEncoder();

export function cardPart(runId, parts) {
  let h = 0x811c9dc5;
  for (const byte of UTF8.encode(runId)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h % parts;
}
