/** Reading back the XML shoal writes (SVG charts), for the tests: well-formedness, and finding elements. */
import assert from 'node:assert/strict';
import { DomUtils, Parser, parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';

/** Throws unless `xml` is well-formed: tags nest and close explicitly, entities are the XML ones. */
export function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  let elements = 0;
  let closes = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        stack.push(name);
        elements++;
      },
      onclosetag(name, isImplied) {
        // htmlparser2 calls `<x/>` an implied close too: accept only that one.
        if (isImplied) assert.equal(xml.slice(parser.endIndex - 1, parser.endIndex + 1), '/>', `<${name}> closed implicitly`);
        assert.equal(stack.pop(), name, `</${name}> does not close the open element`);
        closes++;
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  assert.equal(stack.length, 0, `unclosed: ${stack.join(' > ')}`);
  assert.equal(closes, elements);
  const written = (xml.match(/<\//g) ?? []).length + (xml.match(/\/>/g) ?? []).length;
  assert.equal(written, elements, 'every element is closed in the text, by </x> or />');
  assert.doesNotMatch(xml, /&(?!(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/, 'bare & in the document');
  assert.doesNotMatch(xml, /="[^"]*</, '< inside an attribute value');
}

/** The `<svg>` root of `svg`, after checking that it is well-formed. */
export function parseSvg(svg: string): Element {
  assertWellFormed(svg);
  const doc = parseDocument(svg, { xmlMode: true });
  const root = DomUtils.findOne((e) => e.name === 'svg', doc.children);
  assert.ok(root, 'an <svg> root');
  return root;
}

/** The elements under `root` (itself included) that have the class `cls`. */
export const byClass = (root: Element, cls: string): Element[] =>
  DomUtils.findAll((e) => (e.attribs['class'] ?? '').split(' ').includes(cls), [root]);
