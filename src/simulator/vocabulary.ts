/**
 * Word lists for generated records. They deliberately mix accents, CJK, emoji, right-to-left scripts, apostrophes
 * and quotes, because those are what break exporters (encodings, CSV quoting, Parquet strings).
 */
export const PRODUCT_ADJECTIVES = [
  'Classic',
  'Organic',
  'Vintage',
  'Handmade',
  'Crème',
  'Señorita',
  'Über',
  'Nordic',
  'Smart',
  'Eco',
  'Deluxe',
  'Mini',
  'Ultra-Light',
  "Grandma's",
  '"Limited"',
  'Zero-Waste',
  'Ōsaka',
  'Fjällräven-Style',
  '🔥 Hot',
  '✨ New',
] as const;

export const PRODUCT_NOUNS = [
  'Mug',
  'Tee',
  'Hoodie',
  'Backpack',
  'Candle',
  'Notebook',
  'Sneakers',
  'Tote Bag',
  'Water Bottle',
  'Headphones',
  'Coffee Beans',
  'Olive Oil',
  'Tea Set',
  'Scarf',
  'Wallet',
  'Sunglasses',
  'Yoga Mat',
  'Phone Case',
  'Café Crème',
  'Matcha 抹茶',
  '茶碗 Tea Bowl',
  'שמן זית',
  'قهوة عربية',
  'Kimchi 김치',
] as const;

export const VENDORS = [
  'Acme',
  'Nørrebro Goods',
  'Maison Lumière',
  '東京 Crafts',
  'Café do Brasil',
  "O'Reilly & Sons",
  'Zürich Works',
  'Bazar الشرق',
] as const;

export const PRODUCT_TYPES = ['Apparel', 'Home', 'Food', 'Accessories', 'Electronics', 'Stationery', ''] as const;

export const TAGS = [
  'sale',
  'new',
  'summer',
  'winter',
  'gift',
  'eco',
  'bestseller',
  'vip',
  'wholesale',
  'été',
  '限定',
  'back-in-stock',
] as const;

export const COLORS = ['Black', 'White', 'Rouge', 'Vert', 'Navy', 'Sand', '墨'] as const;
export const SIZES = ['XS', 'S', 'M', 'L', 'XL'] as const;

export const FIRST_NAMES = [
  'Bob',
  'Alice',
  'José',
  'Zoë',
  'Ólafur',
  'François',
  'Siobhán',
  'Łukasz',
  'Søren',
  'Ayşe',
  'Nguyễn',
  'Björk',
  '翔太',
  '美咲',
  'Минь',
  'محمد',
  'נועה',
  'Priya',
  'Chidi',
  'Mary-Kate',
  "D'Angelo",
] as const;

export const LAST_NAMES = [
  'Norman',
  'Smith',
  'García',
  'Müller',
  "O'Brien",
  'Dubois',
  'Kowalski',
  'Jørgensen',
  'Yılmaz',
  'Trần',
  '佐藤',
  '王',
  'Иванова',
  'الحسن',
  'כהן',
  'Okafor',
  'van der Berg',
  'Smith-Jones',
] as const;

/** Email-safe stand-ins for names, indexed like FIRST_NAMES / LAST_NAMES. */
export const FIRST_NAME_ASCII = [
  'bob',
  'alice',
  'jose',
  'zoe',
  'olafur',
  'francois',
  'siobhan',
  'lukasz',
  'soren',
  'ayse',
  'nguyen',
  'bjork',
  'shota',
  'misaki',
  'minh',
  'mohammed',
  'noa',
  'priya',
  'chidi',
  'mary-kate',
  'dangelo',
] as const;

export const LAST_NAME_ASCII = [
  'norman',
  'smith',
  'garcia',
  'muller',
  'obrien',
  'dubois',
  'kowalski',
  'jorgensen',
  'yilmaz',
  'tran',
  'sato',
  'wang',
  'ivanova',
  'alhassan',
  'cohen',
  'okafor',
  'vanderberg',
  'smith-jones',
] as const;

export interface Place {
  city: string;
  province: string | null;
  provinceCode: string | null;
  country: string;
  countryCode: string;
  zip: string;
  latitude: number;
  longitude: number;
}

export const PLACES: readonly Place[] = [
  {
    city: 'Louisville',
    province: 'Kentucky',
    provinceCode: 'KY',
    country: 'United States',
    countryCode: 'US',
    zip: '40202',
    latitude: 38.2527,
    longitude: -85.7585,
  },
  {
    city: 'New York',
    province: 'New York',
    provinceCode: 'NY',
    country: 'United States',
    countryCode: 'US',
    zip: '10001',
    latitude: 40.7506,
    longitude: -73.9971,
  },
  {
    city: 'Montréal',
    province: 'Quebec',
    provinceCode: 'QC',
    country: 'Canada',
    countryCode: 'CA',
    zip: 'H2X 1Y4',
    latitude: 45.5088,
    longitude: -73.5617,
  },
  {
    city: 'München',
    province: null,
    provinceCode: null,
    country: 'Germany',
    countryCode: 'DE',
    zip: '80331',
    latitude: 48.1351,
    longitude: 11.582,
  },
  {
    city: '東京',
    province: 'Tokyo',
    provinceCode: 'JP-13',
    country: 'Japan',
    countryCode: 'JP',
    zip: '100-0001',
    latitude: 35.6812,
    longitude: 139.7671,
  },
  {
    city: 'São Paulo',
    province: 'São Paulo',
    provinceCode: 'SP',
    country: 'Brazil',
    countryCode: 'BR',
    zip: '01310-100',
    latitude: -23.5614,
    longitude: -46.6559,
  },
  {
    city: 'تل أبيب',
    province: null,
    provinceCode: null,
    country: 'Israel',
    countryCode: 'IL',
    zip: '6100000',
    latitude: 32.0853,
    longitude: 34.7818,
  },
  {
    city: 'Reykjavík',
    province: null,
    provinceCode: null,
    country: 'Iceland',
    countryCode: 'IS',
    zip: '101',
    latitude: 64.1466,
    longitude: -21.9426,
  },
];

export const STREETS = [
  'Chestnut Street 92',
  'Rue de la Paix 3',
  'Hauptstraße 1',
  '1-1 Marunouchi',
  'Avenida Paulista, 1578',
  "King's Road 221b",
  'Calle Mayor, 5 – 2º',
] as const;

/** Notes with the characters that break naive exporters: quotes, newlines, tabs, emoji, RTL, a CSV-ish comma. */
export const NOTES = [
  'Please leave the parcel at the back door.',
  'Gift wrap, please!\nMessage: "Happy birthday, Zoë" 🎂',
  'Call before delivery\tphone: +1 555 0100',
  'Fragile — glass inside, "handle with care"',
  'Customer asked: "Can I return this?", said yes.',
  'Rückgabe bis 30. Juni; Rechnung per E-Mail.',
  'ご不在の場合は宅配ボックスへ',
  'נא להשאיר ליד הדלת',
  'Line one\r\nLine two\r\n\tindented line three',
  '\\ backslash and a trailing space ',
] as const;

export const HTML_SNIPPETS = [
  '<p>Made with care in small batches.</p>',
  '<p>It\'s the "one" you\'ve been waiting for.</p>\n<ul>\n\t<li>Soft</li>\n\t<li>Durable</li>\n</ul>',
  '<p><strong>Crème de la crème</strong> — now 20% lighter.</p>',
  '<p>抹茶と一緒にどうぞ。</p>',
  '<p dir="rtl">מוצר איכותי מאוד</p>',
  '<p>🚀 Ships in 24h &amp; free returns</p>',
  '<table><tr><td>Size</td><td>Chest</td></tr><tr><td>M</td><td>40"</td></tr></table>',
] as const;

export const GATEWAYS = ['shopify_payments', 'paypal', 'manual', 'bogus', 'gift_card'] as const;
export const LOCALES = ['en', 'fr', 'de', 'ja', 'pt-BR', 'he', 'ar'] as const;
export const CARRIERS = ['USPS', 'UPS', 'FedEx', 'DHL Express', 'Canada Post'] as const;
export const REFERRERS = [null, 'https://www.google.com/', 'https://www.instagram.com/', 'https://t.co/x'] as const;
