/**
 * Our eld detector against eld itself (`eld/medium`, text cleanup on): the compact table entry for
 * entry, then `detect` text for text (language, scores in order, reliability) on ~2,400 texts:
 * sentences in eld's 60 languages and variants of them, texts drawn from the test web's
 * vocabularies, random letters from every script of eld's letter class, texts around the 350- and
 * 380-byte cuts and the 70-byte word cap, and edge cases (URLs, e-mails, codes, apostrophes,
 * surrogates, letters that lowercase in context).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { eld } from 'eld/medium';
import { detect } from '../../../src/parse/language-detector.js';
import { languageTable } from '../../../src/parse/language-table.js';
import { LANGUAGE_WORDS } from '../../../src/web/data/language-words.js';
import { Rng } from '../../../src/core/prng.js';

const reference = eld.newInstance();
reference.enableTextCleanup(true);

/** One of eld's source files, by path from its `medium` entry (eld's `exports` hide them). */
async function eldSource<T>(path: string): Promise<T> {
  return (await import(new URL(path, import.meta.resolve('eld/medium')).href)) as T;
}

/** The texts on which `detect` and eld disagree, with both answers. */
function differences(texts: readonly string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    const want = reference.detect(text);
    const got = detect(text);
    const wantScores = Object.entries(want.getScores());
    const gotScores = Object.entries(got.scores);
    if (got.language !== want.language || got.isReliable !== want.isReliable() || !isDeepStrictEqual(gotScores, wantScores)) {
      found.push(
        `${JSON.stringify(text.slice(0, 80))}: eld ${want.language}/${want.isReliable()} ${JSON.stringify(wantScores.slice(0, 3))}, ` +
          `ours ${got.language}/${got.isReliable} ${JSON.stringify(gotScores.slice(0, 3))}`,
      );
    }
  }
  return found;
}

/** One sentence in each of eld's 60 languages. */
const SENTENCES: Readonly<Record<string, string>> = {
  am: 'ኮሚቴው ስለ አዲሱ የባቡር መስመር ሪፖርቱን በሚቀጥለው ወር ያወጣል።',
  ar: 'ستنشر اللجنة تقريرها عن خط السكك الحديدية الجديد في الشهر المقبل بعد انتهاء جلسات الاستماع.',
  az: 'Komitə ictimai dinləmələr başa çatdıqdan sonra yeni dəmir yolu xətti haqqında hesabatını gələn ay dərc edəcək.',
  be: 'Камітэт апублікуе сваю справаздачу пра новую чыгуначную лінію ў наступным месяцы.',
  bg: 'Комисията ще публикува доклада си за новата железопътна линия следващия месец.',
  bn: 'কমিটি আগামী মাসে নতুন রেললাইন সম্পর্কে তার প্রতিবেদন প্রকাশ করবে।',
  ca: 'El comitè publicarà el seu informe sobre la nova línia de ferrocarril el mes que ve.',
  cs: 'Výbor zveřejní svou zprávu o nové železniční trati příští měsíc po skončení veřejných slyšení.',
  da: 'Udvalget offentliggør sin rapport om den nye jernbanelinje i næste måned, når høringerne er slut.',
  de: 'Der Ausschuss wird seinen Bericht über die neue Bahnstrecke im nächsten Monat veröffentlichen.',
  el: 'Η επιτροπή θα δημοσιεύσει την έκθεσή της για τη νέα σιδηροδρομική γραμμή τον επόμενο μήνα.',
  en: 'The committee will publish its report on the new railway line next month, after the hearings.',
  es: 'El comité publicará su informe sobre la nueva línea de ferrocarril el próximo mes.',
  et: 'Komisjon avaldab oma aruande uue raudteeliini kohta järgmisel kuul pärast avalikke kuulamisi.',
  eu: 'Batzordeak trenbide linea berriari buruzko txostena argitaratuko du datorren hilabetean.',
  fa: 'کمیته گزارش خود را درباره خط آهن جدید ماه آینده منتشر خواهد کرد.',
  fi: 'Valiokunta julkaisee raporttinsa uudesta rautatielinjasta ensi kuussa kuulemisten jälkeen.',
  fr: 'Le comité publiera son rapport sur la nouvelle ligne de chemin de fer le mois prochain.',
  gu: 'સમિતિ આવતા મહિને નવી રેલવે લાઇન વિશે તેનો અહેવાલ પ્રકાશિત કરશે.',
  he: 'הוועדה תפרסם את הדוח שלה על קו הרכבת החדש בחודש הבא לאחר סיום השימועים.',
  hi: 'समिति अगले महीने नई रेल लाइन पर अपनी रिपोर्ट प्रकाशित करेगी।',
  hr: 'Odbor će sljedeći mjesec objaviti svoje izvješće o novoj željezničkoj pruzi.',
  hu: 'A bizottság a jövő hónapban teszi közzé jelentését az új vasútvonalról a meghallgatások után.',
  hy: 'Հանձնաժողովը հաջորդ ամիս կհրապարակի իր զեկույցը նոր երկաթուղային գծի մասին։',
  is: 'Nefndin mun birta skýrslu sína um nýju járnbrautarlínuna í næsta mánuði.',
  it: 'Il comitato pubblicherà la sua relazione sulla nuova linea ferroviaria il mese prossimo.',
  ja: '委員会は公聴会の終了後、来月新しい鉄道路線に関する報告書を公表する予定です。',
  ka: 'კომიტეტი მომავალ თვეში გამოაქვეყნებს ანგარიშს ახალი სარკინიგზო ხაზის შესახებ.',
  kn: 'ಸಮಿತಿಯು ಮುಂದಿನ ತಿಂಗಳು ಹೊಸ ರೈಲು ಮಾರ್ಗದ ಕುರಿತು ತನ್ನ ವರದಿಯನ್ನು ಪ್ರಕಟಿಸಲಿದೆ.',
  ko: '위원회는 공청회가 끝난 뒤 다음 달에 새 철도 노선에 관한 보고서를 발표할 예정이다.',
  ku: 'کۆمیتەکە ڕاپۆرتەکەی دەربارەی هێڵی نوێی شەمەندەفەر لە مانگی داهاتوو بڵاو دەکاتەوە.',
  lo: 'ຄະນະກໍາມະການຈະພິມເຜີຍແຜ່ບົດລາຍງານກ່ຽວກັບເສັ້ນທາງລົດໄຟໃໝ່ໃນເດືອນໜ້າ.',
  lt: 'Komitetas kitą mėnesį paskelbs savo ataskaitą apie naują geležinkelio liniją.',
  lv: 'Komiteja nākamajā mēnesī publicēs savu ziņojumu par jauno dzelzceļa līniju.',
  ml: 'പുതിയ റെയിൽപാതയെക്കുറിച്ചുള്ള റിപ്പോർട്ട് സമിതി അടുത്ത മാസം പ്രസിദ്ധീകരിക്കും.',
  mr: 'समिती पुढील महिन्यात नवीन रेल्वे मार्गाबद्दलचा आपला अहवाल प्रसिद्ध करेल.',
  ms: 'Jawatankuasa itu akan menerbitkan laporannya mengenai laluan kereta api baharu bulan depan.',
  nl: 'De commissie zal haar rapport over de nieuwe spoorlijn volgende maand publiceren.',
  no: 'Komiteen vil publisere rapporten sin om den nye jernbanelinjen neste måned.',
  or: 'କମିଟି ଆସନ୍ତା ମାସରେ ନୂଆ ରେଳ ଲାଇନ ବିଷୟରେ ଏହାର ରିପୋର୍ଟ ପ୍ରକାଶ କରିବ।',
  pa: 'ਕਮੇਟੀ ਅਗਲੇ ਮਹੀਨੇ ਨਵੀਂ ਰੇਲ ਲਾਈਨ ਬਾਰੇ ਆਪਣੀ ਰਿਪੋਰਟ ਪ੍ਰਕਾਸ਼ਿਤ ਕਰੇਗੀ।',
  pl: 'Komisja opublikuje swoje sprawozdanie na temat nowej linii kolejowej w przyszłym miesiącu.',
  pt: 'O comitê publicará seu relatório sobre a nova linha ferroviária no próximo mês.',
  ro: 'Comitetul își va publica raportul privind noua linie de cale ferată luna viitoare.',
  ru: 'Комитет опубликует свой доклад о новой железнодорожной линии в следующем месяце.',
  sk: 'Výbor zverejní svoju správu o novej železničnej trati budúci mesiac.',
  sl: 'Odbor bo prihodnji mesec objavil svoje poročilo o novi železniški progi.',
  sq: 'Komiteti do të publikojë raportin e tij për linjën e re hekurudhore muajin e ardhshëm.',
  sr: 'Одбор ће следећег месеца објавити свој извештај о новој железничкој прузи.',
  sv: 'Kommittén kommer att publicera sin rapport om den nya järnvägslinjen nästa månad.',
  ta: 'குழு அடுத்த மாதம் புதிய ரயில் பாதை குறித்த தனது அறிக்கையை வெளியிடும்.',
  te: 'కమిటీ వచ్చే నెలలో కొత్త రైల్వే లైన్‌పై తన నివేదికను ప్రచురిస్తుంది.',
  th: 'คณะกรรมการจะเผยแพร่รายงานเกี่ยวกับเส้นทางรถไฟสายใหม่ในเดือนหน้า',
  tl: 'Ilalathala ng komite ang ulat nito tungkol sa bagong linya ng tren sa susunod na buwan.',
  tr: 'Komite, yeni demiryolu hattına ilişkin raporunu gelecek ay yayımlayacak.',
  uk: 'Комітет опублікує свою доповідь про нову залізничну лінію наступного місяця.',
  ur: 'کمیٹی اگلے مہینے نئی ریلوے لائن کے بارے میں اپنی رپورٹ شائع کرے گی۔',
  vi: 'Ủy ban sẽ công bố báo cáo về tuyến đường sắt mới vào tháng tới.',
  yo: 'Ìgbìmọ̀ náà yóò tẹ ìròyìn rẹ̀ jáde nípa ọ̀nà ọkọ̀ ojú irin tuntun ní oṣù tó ń bọ̀.',
  zh: '委员会将在公开听证会结束后于下个月发布关于新铁路线的报告。',
};

/** Pieces that exercise eld's cleanup and separators. */
const NOISE = [
  ' 2024 ',
  ' 12,50 € ',
  ' A4 ',
  ' x86_64 ',
  ' H2O ',
  ' http://example.org/a?b=1 ',
  ' https://www.example.com/x ',
  ' www.example.net ',
  ' mail@example.com ',
  ' first.last+tag@sub.example.co.uk ',
  ' example.com, ',
  ' shop.example.com/page ',
  " l'",
  " d'",
  "' ",
  ' ’',
  '` ',
  ' — ',
  ' ... ',
  ' (',
  ') ',
  ' « ',
  ' » ',
  ' 😀 ',
  ' 𝒜𝒷𝒸 ',
  '\n',
  '\t',
  '\u00a0',
  ' © ',
];

/** Letters and others that are special somewhere in eld's steps. */
const SPECIALS = [
  'Σ',
  'ς',
  'σ',
  'İ',
  'ı',
  'K',
  'Å',
  'Ω',
  'ẞ',
  'Ⱥ',
  'ǅ',
  'ᾈ',
  'ﬀ',
  "'",
  '`',
  '’',
  ' ',
  '.',
  ',',
  '1',
  '@',
  '.com',
  'http://',
  'www.',
  '😀',
  '\ud800',
  '\udc00',
  '\u0301',
  '\u200d',
  '\ufeff',
];

/** Every code unit in eld's letter class. */
function letters(): number[] {
  const letter = new RegExp(`[${languageTable().letterClass}]`);
  const found: number[] = [];
  for (let c = 0; c < 0x10000; c++) if (letter.test(String.fromCharCode(c))) found.push(c);
  return found;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

describe('languageTable', () => {
  it("holds eld's medium table entry for entry", async () => {
    const { ngramsData } = await eldSource<{
      ngramsData: { type: string; isSubset: boolean; languages: Record<string, string>; ngrams: Record<string, Record<string, number>> };
    }>('../ngrams/medium.js');
    const table = languageTable();
    assert.equal(table.type, ngramsData.type);
    assert.equal(table.isSubset, ngramsData.isSubset);
    assert.deepEqual(Object.fromEntries(table.languages.map((code, i) => [String(i), code])), ngramsData.languages);
    assert.equal(table.languages.length, 60);
    assert.deepEqual(reference.info().Languages, ngramsData.languages);
    const keys = Object.keys(ngramsData.ngrams);
    assert.equal(table.ngrams.size, keys.length);
    const wrong: string[] = [];
    let pairs = 0;
    for (const key of keys) {
      const want = ngramsData.ngrams[key] as Record<string, number>;
      pairs += Object.keys(want).length;
      if (!isDeepStrictEqual(table.ngrams.scoresOf(key), { ...want })) wrong.push(JSON.stringify(key));
    }
    assert.deepEqual(wrong.slice(0, 10), []);
    assert.ok(keys.length > 100_000 && pairs > 170_000, `${keys.length} n-grams, ${pairs} scores`);
    for (const absent of ['', 'zzzzzz', ' qxqx ', 'ab\u0100', 'toolong']) assert.equal(table.ngrams.scoresOf(absent), undefined, absent);
  });

  it("holds eld's average scores, byte dictionary and letter class", async () => {
    const table = languageTable();
    const { avgScore } = await eldSource<{ avgScore: Record<string, number> }>('../avgScore.js');
    assert.deepEqual(Object.fromEntries(table.languages.map((code, i) => [code, table.averageScores[i]])), avgScore);
    const { dictionary } = await eldSource<{ dictionary: string[] }>('../dictionary.js');
    assert.deepEqual(
      [...table.byteChars].map((c) => String.fromCharCode(c)),
      dictionary,
    );
    const { separators, matchDomains } = await eldSource<{ separators: RegExp; matchDomains: RegExp }>('../regexPatterns.js');
    // The detector relies on eld building its separators and domains from this class, this way.
    assert.equal(separators.source, `[^${table.letterClass}]+(?<![\\x27\\x60\\u2019])`);
    assert.equal(separators.flags, 'gu');
    assert.equal(matchDomains.source, new RegExp(`([A-Za-z0-9-]+\\.)+com(\\/\\S*|[^${table.letterClass}])`).source);
  });

  it('is loaded once and shared', () => {
    assert.equal(languageTable(), languageTable());
  });
});

describe('detect', () => {
  it("gives eld's answers on sentences in its 60 languages and variants of them", () => {
    const sentences = Object.values(SENTENCES);
    const texts = [
      ...sentences,
      ...sentences.map((s) => s.toUpperCase()),
      ...sentences.map((s, i) => `${NOISE[i % NOISE.length] as string}${s}${NOISE[(i * 7 + 3) % NOISE.length] as string}${s.slice(0, 20)}`),
      ...sentences.map((s) => s.split(' ').slice(0, 2).join(' ')),
      ...sentences.map((s) => `${s} `.repeat(12)),
    ];
    assert.deepEqual(differences(texts), []);
    const found = new Set(sentences.map((s) => detect(s).language));
    assert.ok(found.size >= 50, `the sentences give ${found.size} languages`);
  });

  it("gives eld's answers on texts from the test web's vocabularies, with noise", () => {
    const rng = new Rng(7, 0, 0);
    const texts: string[] = [];
    for (const words of Object.values(LANGUAGE_WORDS)) {
      const vocabulary = [...words.common, ...words.content];
      for (let t = 0; t < 25; t++) {
        const parts: string[] = [];
        const count = rng.pick([1, 2, 3, 8, 30, 90, 250]);
        for (let w = 0; w < count; w++) {
          let word = rng.pick(vocabulary);
          if (rng.chance(0.15)) word = capitalize(word);
          if (rng.chance(0.03)) word = word.toUpperCase();
          parts.push(word, rng.chance(0.1) ? rng.pick(NOISE) : rng.chance(0.1) ? rng.pick(['. ', ', ', '! ', '? ', ': ']) : ' ');
        }
        texts.push(parts.join(''));
      }
    }
    assert.deepEqual(differences(texts), []);
  });

  it("gives eld's answers on random letters of every script, with special characters", () => {
    const all = letters();
    const rng = new Rng(11, 0, 0);
    const texts: string[] = [];
    for (let t = 0; t < 300; t++) {
      const base = rng.int(all.length);
      let text = '';
      for (let n = rng.int(500); n > 0; n--) {
        const r = rng.next();
        if (r < 0.55) text += String.fromCharCode(all[Math.min(all.length - 1, Math.max(0, base + rng.range(-30, 30)))] as number);
        else if (r < 0.62) text += String.fromCharCode(rng.pick(all));
        else if (r < 0.8) text += ' ';
        else text += rng.pick(SPECIALS);
      }
      texts.push(text);
    }
    assert.deepEqual(differences(texts), []);
  });

  it("gives eld's answers around the 350- and 380-byte cuts and the 70-byte word cap", () => {
    const bases = [SENTENCES.en, SENTENCES.de, SENTENCES.ru, SENTENCES.zh, SENTENCES.hi, `${SENTENCES.el as string} 😀`].map((s) =>
      `${s as string} `.repeat(20),
    );
    const texts: string[] = [];
    for (const [i, base] of bases.entries()) {
      for (let n = 100; n <= 460; n += i < 2 ? 1 : 3) texts.push(base.slice(0, n));
      // Word boundaries at every byte offset, after a leading run of non-letters that eld trims before counting.
      for (let k = 0; k < 12; k++) texts.push(`— ${'q'.repeat(k)} ${base}`, `${'q'.repeat(k)} ${base}`);
    }
    for (const [letter, n] of [
      ['a', 64],
      ['é', 30],
      ['ж', 30],
      ['中', 20],
      ['😀', 10],
    ] as const) {
      for (let k = n; k < n + 12; k++) texts.push(letter.repeat(k), `xy ${letter.repeat(k)} zw`, `${'ab '.repeat(110)}${letter.repeat(k)}`);
    }
    texts.push('a'.repeat(1000), 'é'.repeat(600), `${'word '.repeat(69)}${'ä'.repeat(100)}`, 'abcdefghij'.repeat(30));
    assert.deepEqual(differences(texts), []);
  });

  it("gives eld's answers on edge cases", () => {
    const long = `${SENTENCES.fr as string} `.repeat(100);
    const texts = [
      '',
      ' ',
      '   ',
      '\n\t',
      '12345',
      '3.14 2,718 1e10',
      '© 2024 — 12:30 · 42 %',
      'OK',
      'Hello',
      'Bonjour',
      'http://example.com',
      'www.example.org/path?x=1 and more',
      'mail@example.com',
      'a@b.cd',
      'x.com',
      'X.COM',
      'see example.com/page and foo.com.',
      'HTTP://EXAMPLE.ORG/X über alles',
      'A1 B2 C3 x86_64 H2O',
      'abc123def ghi',
      'élan2 vital',
      '2abc def',
      "'''",
      '’’ ``',
      "l'",
      "don't",
      "l'homme d'un ’tis rock’n’roll `quoted'",
      " ,'abc",
      "abc' ,",
      '😀😀😀',
      'x😀y',
      '\ud800abc',
      'abc\udc00',
      '\ufeffBOM text',
      'ΟΔΥΣΣΕΥΣ ΚΑΙ ΑΧΙΛΛΕΥΣ',
      'ΑΣ.Β ΣΑ Σ',
      'İSTANBUL İzmir',
      'KELVIN Å Ω',
      'e\u0301te\u0301 cafe\u0301',
      'ﬁne ﬂow',
      'Приве́т, как дела́?',
      '한국어 텍스트 입니다',
      'नमस्ते दुनिया',
      long,
      long.slice(0, 10_000),
      `${'https://x.org/ '.repeat(70)}${SENTENCES.it as string}`,
      `${'1234 '.repeat(300)}${SENTENCES.pl as string}`,
      `${SENTENCES.nl as string}${'x'.repeat(2000)}`,
    ];
    assert.deepEqual(differences(texts), []);
  });

  it('answers in the shape eld does', () => {
    const none = detect('12345');
    assert.equal(none.language, '');
    assert.equal(none.isReliable, false);
    assert.deepEqual(none.scores, {});
    const sure = detect(SENTENCES.de as string);
    assert.equal(sure.language, 'de');
    assert.equal(sure.isReliable, true);
    const scores = Object.entries(sure.scores);
    assert.equal(scores[0]?.[0], 'de');
    for (let i = 1; i < scores.length; i++) assert.ok((scores[i]?.[1] as number) <= (scores[i - 1]?.[1] as number));
    assert.equal(sure.scores, sure.scores, 'built once');
  });
});
