import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLanguage, primaryLanguage } from '../../../src/parse/language.js';

const SAMPLES: Record<string, string> = {
  en: 'The committee will publish its report on the new railway line next month, after the public hearings have ended.',
  de: 'Der Ausschuss wird seinen Bericht über die neue Bahnstrecke im nächsten Monat veröffentlichen, nachdem die Anhörungen beendet sind.',
  fr: 'Le comité publiera son rapport sur la nouvelle ligne de chemin de fer le mois prochain, après la fin des audiences publiques.',
  es: 'El comité publicará su informe sobre la nueva línea de ferrocarril el próximo mes, después de que terminen las audiencias públicas.',
  it: 'Il comitato pubblicherà la sua relazione sulla nuova linea ferroviaria il mese prossimo, dopo la fine delle audizioni pubbliche.',
  pl: 'Komisja opublikuje swoje sprawozdanie na temat nowej linii kolejowej w przyszłym miesiącu, po zakończeniu publicznych przesłuchań.',
  ru: 'Комитет опубликует свой доклад о новой железнодорожной линии в следующем месяце, после окончания публичных слушаний.',
  nl: 'De commissie zal haar rapport over de nieuwe spoorlijn volgende maand publiceren, nadat de openbare hoorzittingen zijn afgelopen.',
};

describe('detectLanguage', () => {
  it('identifies the language of a sentence, reliably', () => {
    for (const [code, text] of Object.entries(SAMPLES)) {
      assert.deepEqual(detectLanguage(text), { code, isReliable: true, source: 'text' }, code);
    }
  });

  it('prefers a reliable detection over the declared language', () => {
    assert.deepEqual(detectLanguage(SAMPLES.de as string, 'en-US'), { code: 'de', isReliable: true, source: 'text' });
  });

  it('falls back to the declared language when the text says too little', () => {
    assert.deepEqual(detectLanguage('OK', 'pt-BR'), { code: 'pt', isReliable: false, source: 'declared' });
    assert.deepEqual(detectLanguage('', 'fr'), { code: 'fr', isReliable: false, source: 'declared' });
    assert.deepEqual(detectLanguage('© 2024 — 12:30 · 42 %', 'sv'), { code: 'sv', isReliable: false, source: 'declared' });
  });

  it('takes an unsure detection as sure when the declaration agrees', () => {
    const short = 'Bonjour';
    const alone = detectLanguage(short);
    assert.equal(alone.isReliable, false, 'one word alone is not enough');
    assert.deepEqual(detectLanguage(short, 'fr'), { code: 'fr', isReliable: true, source: 'text' });
  });

  it('gives the unsure guess, or nothing, without a declaration', () => {
    const guess = detectLanguage('Hello');
    assert.equal(guess.isReliable, false);
    assert.equal(guess.source, 'text');
    assert.deepEqual(detectLanguage(''), { code: '', isReliable: false, source: 'none' });
    assert.deepEqual(detectLanguage('12 345 678 !!', 'not-a-tag'), { code: '', isReliable: false, source: 'none' });
  });

  it('reads past an opening without words (the first kilobyte alone decides nothing)', () => {
    const opening = '© 2024 · 1.234 · 5.678 · '.repeat(45);
    assert.ok(opening.length > 1000);
    const text = `${opening} ${(SAMPLES.de as string).repeat(4)}`;
    assert.deepEqual(detectLanguage(text), { code: 'de', isReliable: true, source: 'text' });
  });

  it('survives long text', () => {
    assert.equal(detectLanguage((SAMPLES.it as string).repeat(5000)).code, 'it');
  });
});

describe('primaryLanguage', () => {
  it('takes the two-letter primary subtag of a language tag', () => {
    const cases: [string | undefined, string][] = [
      ['en', 'en'],
      ['en-US', 'en'],
      [' FR ', 'fr'],
      ['zh_Hant', 'zh'],
      ['de-1996', 'de'],
      ['eng', ''],
      ['x-klingon', ''],
      ['', ''],
      [undefined, ''],
      ['e', ''],
      ['en us', ''],
    ];
    for (const [tag, code] of cases) assert.equal(primaryLanguage(tag), code, String(tag));
  });
});
