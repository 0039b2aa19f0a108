/**
 * Street suffixes, directionals and secondary unit designators of US street addresses, for the address
 * extractor (address-extractor.ts). Origin: United States Postal Service, Publication 28 "Postal
 * Addressing Standards", Appendix C1 (Street Suffix Abbreviations: primary suffix name, common
 * abbreviations, Postal Service standard abbreviation) and Appendix C2 (Secondary Unit Designators),
 * and §2 (directionals). A US government work, in the public domain. Transcribed by hand for shoal:
 * every primary suffix of C1 with its standard abbreviation; of the "commonly used" spellings only those
 * seen in ordinary writing (AV, STR, CTR, CENTRE, PKY, ...), not the rare misspellings C1 also lists
 * (AVENU, BOULV, CRCLE, ...). Names are in title case; the extractor accepts title and upper case.
 */

/** One street suffix: the C1 primary name, its USPS standard abbreviation, other spellings in use. */
export interface StreetType {
  /** The primary suffix name, e.g. `Street`. */
  readonly name: string;
  /** The Postal Service standard abbreviation, e.g. `St`. */
  readonly abbrev: string;
  /** Other common spellings (C1's "commonly used" column, the frequent ones). */
  readonly variants: readonly string[];
}

const t = (name: string, abbrev: string, ...variants: string[]): StreetType => ({ name, abbrev, variants });

/** USPS Publication 28, Appendix C1. */
export const STREET_TYPES: readonly StreetType[] = [
  t('Alley', 'Aly', 'Allee', 'Ally'), t('Annex', 'Anx', 'Anex'), t('Arcade', 'Arc'), t('Avenue', 'Ave', 'Av', 'Aven', 'Avn'),
  t('Bayou', 'Byu'), t('Beach', 'Bch'), t('Bend', 'Bnd'), t('Bluff', 'Blf'), t('Bluffs', 'Blfs'), t('Bottom', 'Btm'),
  t('Boulevard', 'Blvd', 'Boul', 'Boulv'), t('Branch', 'Br', 'Brnch'), t('Bridge', 'Brg', 'Brdge'), t('Brook', 'Brk'),
  t('Brooks', 'Brks'), t('Burg', 'Bg'), t('Burgs', 'Bgs'), t('Bypass', 'Byp', 'Bypa', 'Byps'), t('Camp', 'Cp', 'Cmp'),
  t('Canyon', 'Cyn', 'Canyn'), t('Cape', 'Cpe'), t('Causeway', 'Cswy', 'Causwa'), t('Center', 'Ctr', 'Cntr', 'Centre', 'Cent'),
  t('Centers', 'Ctrs'), t('Circle', 'Cir', 'Circ'), t('Circles', 'Cirs'), t('Cliff', 'Clf'), t('Cliffs', 'Clfs'), t('Club', 'Clb'),
  t('Common', 'Cmn'), t('Commons', 'Cmns'), t('Corner', 'Cor'), t('Corners', 'Cors'), t('Course', 'Crse'), t('Court', 'Ct'),
  t('Courts', 'Cts'), t('Cove', 'Cv'), t('Coves', 'Cvs'), t('Creek', 'Crk'), t('Crescent', 'Cres', 'Crsent'), t('Crest', 'Crst'),
  t('Crossing', 'Xing', 'Crssng'), t('Crossroad', 'Xrd'), t('Crossroads', 'Xrds'), t('Curve', 'Curv'), t('Dale', 'Dl'),
  t('Dam', 'Dm'), t('Divide', 'Dv', 'Dvd'), t('Drive', 'Dr', 'Drv'), t('Drives', 'Drs'), t('Estate', 'Est'), t('Estates', 'Ests'),
  t('Expressway', 'Expy', 'Expw', 'Expr'), t('Extension', 'Ext', 'Extn'), t('Extensions', 'Exts'), t('Fall', 'Fall'),
  t('Falls', 'Fls'), t('Ferry', 'Fry', 'Frry'), t('Field', 'Fld'), t('Fields', 'Flds'), t('Flat', 'Flt'), t('Flats', 'Flts'),
  t('Ford', 'Frd'), t('Fords', 'Frds'), t('Forest', 'Frst'), t('Forge', 'Frg'), t('Forges', 'Frgs'), t('Fork', 'Frk'),
  t('Forks', 'Frks'), t('Fort', 'Ft', 'Frt'), t('Freeway', 'Fwy', 'Frwy'), t('Garden', 'Gdn', 'Gardn'), t('Gardens', 'Gdns'),
  t('Gateway', 'Gtwy', 'Gatewy'), t('Glen', 'Gln'), t('Glens', 'Glns'), t('Green', 'Grn'), t('Greens', 'Grns'), t('Grove', 'Grv'),
  t('Groves', 'Grvs'), t('Harbor', 'Hbr', 'Harb'), t('Harbors', 'Hbrs'), t('Haven', 'Hvn'), t('Heights', 'Hts', 'Ht'),
  t('Highway', 'Hwy', 'Hiway', 'Hiwy', 'Hway'), t('Hill', 'Hl'), t('Hills', 'Hls'), t('Hollow', 'Holw'), t('Inlet', 'Inlt'),
  t('Island', 'Is'), t('Islands', 'Iss'), t('Isle', 'Isle'), t('Junction', 'Jct', 'Jctn'), t('Junctions', 'Jcts'), t('Key', 'Ky'),
  t('Keys', 'Kys'), t('Knoll', 'Knl'), t('Knolls', 'Knls'), t('Lake', 'Lk'), t('Lakes', 'Lks'), t('Land', 'Land'),
  t('Landing', 'Lndg'), t('Lane', 'Ln'), t('Light', 'Lgt'), t('Lights', 'Lgts'), t('Loaf', 'Lf'), t('Lock', 'Lck'),
  t('Locks', 'Lcks'), t('Lodge', 'Ldg'), t('Loop', 'Loop'), t('Mall', 'Mall'), t('Manor', 'Mnr'), t('Manors', 'Mnrs'),
  t('Meadow', 'Mdw'), t('Meadows', 'Mdws'), t('Mews', 'Mews'), t('Mill', 'Ml'), t('Mills', 'Mls'), t('Mission', 'Msn'),
  t('Motorway', 'Mtwy'), t('Mount', 'Mt'), t('Mountain', 'Mtn'), t('Mountains', 'Mtns'), t('Neck', 'Nck'), t('Orchard', 'Orch'),
  t('Oval', 'Oval'), t('Overpass', 'Opas'), t('Park', 'Park', 'Prk'), t('Parks', 'Park'), t('Parkway', 'Pkwy', 'Pky', 'Parkwy'),
  t('Parkways', 'Pkwy', 'Pkwys'), t('Pass', 'Pass'), t('Passage', 'Psge'), t('Path', 'Path'), t('Pike', 'Pike'), t('Pine', 'Pne'),
  t('Pines', 'Pnes'), t('Place', 'Pl'), t('Plain', 'Pln'), t('Plains', 'Plns'), t('Plaza', 'Plz', 'Plza'), t('Point', 'Pt'),
  t('Points', 'Pts'), t('Port', 'Prt'), t('Ports', 'Prts'), t('Prairie', 'Pr'), t('Radial', 'Radl'), t('Ramp', 'Ramp'),
  t('Ranch', 'Rnch'), t('Rapid', 'Rpd'), t('Rapids', 'Rpds'), t('Rest', 'Rst'), t('Ridge', 'Rdg'), t('Ridges', 'Rdgs'),
  t('River', 'Riv', 'Rvr'), t('Road', 'Rd'), t('Roads', 'Rds'), t('Route', 'Rte'), t('Row', 'Row'), t('Rue', 'Rue'), t('Run', 'Run'),
  t('Shoal', 'Shl'), t('Shoals', 'Shls'), t('Shore', 'Shr'), t('Shores', 'Shrs'), t('Skyway', 'Skwy'), t('Spring', 'Spg'),
  t('Springs', 'Spgs'), t('Spur', 'Spur'), t('Square', 'Sq', 'Sqr', 'Squ'), t('Squares', 'Sqs'), t('Station', 'Sta', 'Stn'),
  t('Stravenue', 'Stra'), t('Stream', 'Strm'), t('Street', 'St', 'Str', 'Strt'), t('Streets', 'Sts'), t('Summit', 'Smt'),
  t('Terrace', 'Ter', 'Terr'), t('Throughway', 'Trwy'), t('Trace', 'Trce'), t('Track', 'Trak'), t('Trafficway', 'Trfy'),
  t('Trail', 'Trl'), t('Trailer', 'Trlr'), t('Tunnel', 'Tunl'), t('Turnpike', 'Tpke', 'Tpk'), t('Underpass', 'Upas'),
  t('Union', 'Un'), t('Unions', 'Uns'), t('Valley', 'Vly'), t('Valleys', 'Vlys'), t('Viaduct', 'Via'), t('View', 'Vw'),
  t('Views', 'Vws'), t('Village', 'Vlg'), t('Villages', 'Vlgs'), t('Ville', 'Vl'), t('Vista', 'Vis', 'Vst'), t('Walk', 'Walk'),
  t('Walks', 'Walk'), t('Wall', 'Wall'), t('Way', 'Way', 'Wy'), t('Ways', 'Ways'), t('Well', 'Wl'), t('Wells', 'Wls'),
];

/** Directionals (Publication 28 §233, §234) → their standard abbreviation. */
export const DIRECTIONALS: Readonly<Record<string, string>> = {
  North: 'N', South: 'S', East: 'E', West: 'W',
  Northeast: 'NE', Northwest: 'NW', Southeast: 'SE', Southwest: 'SW',
  N: 'N', S: 'S', E: 'E', W: 'W', NE: 'NE', NW: 'NW', SE: 'SE', SW: 'SW',
};

/** Secondary unit designators that take a number or letter (`Suite 300`, `Apt 4B`), Appendix C2. */
export const UNIT_DESIGNATORS: readonly string[] = [
  'Apartment', 'Apt', 'Building', 'Bldg', 'Department', 'Dept', 'Floor', 'Fl', 'Hangar', 'Hngr', 'Lot', 'Pier', 'Room',
  'Rm', 'Slip', 'Space', 'Spc', 'Stop', 'Suite', 'Ste', 'Trailer', 'Trlr', 'Unit',
];

/** Secondary unit designators that stand alone (`Penthouse`, `Rear`), Appendix C2. */
export const BARE_UNIT_DESIGNATORS: readonly string[] = [
  'Basement', 'Bsmt', 'Front', 'Frnt', 'Lobby', 'Lbby', 'Lower', 'Lowr', 'Penthouse', 'PH', 'Rear', 'Upper', 'Uppr',
];

/** Spelled-out ordinals, as in `Fifth Floor` or `Fifth Avenue` → `5TH`. */
export const ORDINAL_WORDS: Readonly<Record<string, string>> = {
  First: '1ST', Second: '2ND', Third: '3RD', Fourth: '4TH', Fifth: '5TH', Sixth: '6TH', Seventh: '7TH', Eighth: '8TH',
  Ninth: '9TH', Tenth: '10TH', Eleventh: '11TH', Twelfth: '12TH', Thirteenth: '13TH', Fourteenth: '14TH', Fifteenth: '15TH',
  Sixteenth: '16TH', Seventeenth: '17TH', Eighteenth: '18TH', Nineteenth: '19TH', Twentieth: '20TH',
};
