/**
 * Common US street names and street types (with their USPS abbreviations) for the addresses of the synthetic
 * test web. Hand-written for shoal from general knowledge of US street naming (trees, presidents, landscape,
 * numbered streets spelled out); the abbreviations follow USPS Publication 28 suffix abbreviations.
 */

/** Common US street names in title case, without the type word ("Oak", not "Oak Street"); single words only. */
export const STREET_NAMES: readonly string[] = [
  'Main', 'Oak', 'Maple', 'Washington', 'Park', 'Lake', 'Hill', 'Elm', 'Cedar', 'Pine', 'Lincoln', 'Jefferson',
  'Church', 'Spring', 'Ridge', 'Madison', 'Franklin', 'Highland', 'Sunset', 'Market', 'Broad', 'Center', 'Water',
  'Mill', 'River', 'First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth',
  'Eleventh', 'Twelfth', 'Walnut', 'Chestnut', 'Cherry', 'Willow', 'Birch', 'Hickory', 'Sycamore', 'Poplar', 'Spruce',
  'Magnolia', 'Dogwood', 'Laurel', 'Holly', 'Jackson', 'Adams', 'Monroe', 'Grant', 'Wilson', 'Johnson', 'Hamilton',
  'Clinton', 'Harrison', 'Taylor', 'Polk', 'Pierce', 'Buchanan', 'Cleveland', 'Roosevelt', 'Kennedy', 'Howard', 'Lee',
  'Forest', 'Meadow', 'Valley', 'Prospect', 'Pleasant', 'Woodland', 'Lakeview', 'Hillside', 'Riverside', 'Fairview',
  'Greenwood', 'Sunrise', 'Oakwood', 'Lakeshore', 'Orchard', 'Garden', 'Mountain', 'Bridge', 'Railroad', 'Depot',
  'College', 'School', 'Academy', 'Union', 'Liberty', 'Independence', 'Commerce', 'Industrial', 'Front', 'High',
  'North', 'South', 'East', 'West', 'Central', 'Maplewood', 'Elmwood', 'Pinecrest', 'Rosewood', 'Cottage', 'Heritage',
  'Mulberry', 'Locust', 'Juniper', 'Aspen', 'Cypress', 'Hawthorne', 'Meadowbrook', 'Brookside', 'Creek', 'Canal',
  'Harbor', 'Bay', 'Beach', 'Shore', 'Grove', 'Summit', 'Vista', 'Kingston', 'Princeton', 'Cambridge', 'Oxford',
  'Wellington', 'Windsor', 'Dover', 'Chester', 'Salem', 'Virginia', 'Carolina', 'Delaware', 'Jersey', 'Vine', 'Ivy',
  'Rose', 'Lilac', 'Clover', 'Beacon', 'Colonial', 'Heather', 'Evergreen', 'Sherwood', 'Marshall', 'Morris', 'Warren',
  'Green', 'Knoll', 'Glen', 'Fox', 'Deer', 'Eagle', 'Hawk', 'Quail', 'Dove', 'Cardinal', 'Robin',
];

/** Street types with their USPS abbreviation. */
export const STREET_TYPES: readonly { readonly word: string; readonly abbrev: string }[] = [
  { word: 'Street', abbrev: 'St' },
  { word: 'Avenue', abbrev: 'Ave' },
  { word: 'Boulevard', abbrev: 'Blvd' },
  { word: 'Road', abbrev: 'Rd' },
  { word: 'Drive', abbrev: 'Dr' },
  { word: 'Lane', abbrev: 'Ln' },
  { word: 'Way', abbrev: 'Way' },
  { word: 'Court', abbrev: 'Ct' },
  { word: 'Place', abbrev: 'Pl' },
  { word: 'Terrace', abbrev: 'Ter' },
  { word: 'Parkway', abbrev: 'Pkwy' },
  { word: 'Circle', abbrev: 'Cir' },
  { word: 'Highway', abbrev: 'Hwy' },
  { word: 'Square', abbrev: 'Sq' },
  { word: 'Trail', abbrev: 'Trl' },
];
