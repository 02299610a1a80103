/**
 * Answer quality: the material of a fictional bicycle workshop (Spoke & Chain, Groningen),
 * questions that paraphrase it with the fact each answer must hold, and questions it does
 * not cover. Written for quality.test.ts; unlike the knowledge module's Northwind corpus it
 * is not tuned against the search code. A small corpus in each of the other four languages
 * checks that the offline model's own sentences come in the answer's language.
 */
import type { Language } from '../agents/schemas.ts';

export interface WorkshopPassage {
  key: string;
  title: string;
  text: string;
}

export const WORKSHOP_CORPUS: WorkshopPassage[] = [
  { key: 'opening-hours', title: 'Opening hours', text: 'The workshop on Vismarkt 12 in Groningen is open Tuesday to Friday from 8:30 to 18:00 and on Saturday from 9:00 to 17:00. We are closed on Sundays and Mondays.' },
  { key: 'holiday-closing', title: 'Holiday closing', text: 'Every year the workshop closes for the summer break during the first two weeks of August. Between Christmas and New Year we only do emergency repairs, by appointment.' },
  { key: 'location', title: 'Finding us', text: 'Spoke & Chain is on Vismarkt 12, a two-minute walk from the Martini tower. Bicycle parking is free in the rack in front of the shop; cars can park in the Forum garage around the corner.' },
  { key: 'appointments', title: 'Booking a repair', text: 'Book a repair slot online through the booking page or by phone. Walk-ins are welcome for small jobs such as a puncture, but larger repairs need an appointment at least two days ahead.' },
  { key: 'flat-tyre', title: 'Puncture repair', text: 'Fixing a flat tyre costs 15 euros for a front wheel and 19 euros for a rear wheel, including a new inner tube if the old one cannot be patched. Most punctures are repaired while you wait, within 30 minutes.' },
  { key: 'basic-service', title: 'Basic service', text: 'The basic service costs 59 euros and includes adjusting the brakes and gears, truing the wheels, checking tyre pressure and lubricating the chain. Parts are charged separately.' },
  { key: 'full-service', title: 'Full service', text: 'The full service costs 129 euros. We strip the bicycle down, clean and grease the bearings, replace the brake and gear cables and test ride it before handing it back.' },
  { key: 'e-bike-service', title: 'E-bike service', text: "An e-bike service costs 89 euros and includes a diagnostic read-out of the motor and battery with the manufacturer's software. We service Bosch, Shimano Steps and Bafang systems." },
  { key: 'battery', title: 'E-bike batteries', text: 'A worn e-bike battery can be tested for its remaining capacity for 25 euros. Replacement batteries are ordered from the manufacturer and usually arrive within ten working days.' },
  { key: 'labour-rate', title: 'Labour rate', text: 'Work that is not on the price list is charged at 60 euros an hour, billed per quarter of an hour. We always call you for approval before a repair costs more than the estimate.' },
  { key: 'estimate', title: 'Free estimate', text: 'Bring your bicycle in and a mechanic will look it over and give you a written estimate free of charge. The estimate is valid for 14 days.' },
  { key: 'turnaround', title: 'Repair times', text: 'Most repairs are ready the same day if you bring the bicycle in before 10:00. In the busy spring season a full service can take up to three working days.' },
  { key: 'pickup', title: 'Pick-up and delivery', text: 'Within the Groningen ring road we collect your bicycle from home and bring it back after the repair for 12.50 euros. Book the pick-up at least one day in advance.' },
  { key: 'loan-bike', title: 'Loan bikes', text: 'While your own bicycle is in the workshop you can borrow one of our loan bikes for free for up to three days. A loan e-bike costs 10 euros a day.' },
  { key: 'rental', title: 'Bike rental', text: 'We rent out city bikes for 12 euros a day and e-bikes for 30 euros a day. Renters must show a valid ID and leave a deposit of 50 euros.' },
  { key: 'payment', title: 'Payment', text: 'You can pay by debit card, credit card, Apple Pay or cash. We do not accept cheques, and invoices for companies can be paid by bank transfer within 30 days.' },
  { key: 'repair-guarantee', title: 'Guarantee on repairs', text: "We give six months' guarantee on our labour. If a repair we did fails within that time, we fix it again at no cost; parts carry the manufacturer's warranty." },
  { key: 'used-bikes', title: 'Second-hand bicycles', text: 'We sell refurbished second-hand bicycles from 149 euros. Each one has had a full service and comes with a three-month guarantee.' },
  { key: 'trade-in', title: 'Trade-in', text: 'When you buy a new bicycle from us, we take your old one in part exchange. The trade-in value depends on its condition and is deducted from the new price.' },
  { key: 'new-bikes', title: 'New bicycles', text: 'We stock city bikes from Gazelle and Batavus and cargo bikes from Urban Arrow. Test rides are possible on weekdays without an appointment.' },
  { key: 'cargo-bikes', title: 'Cargo bikes', text: 'Cargo bikes are serviced in the back workshop because they do not fit on the normal stands. A cargo bike service costs 149 euros because of the extra time it takes.' },
  { key: 'child-seats', title: 'Child seats', text: 'We fit front and rear child seats from Bobike and Thule. Fitting costs 20 euros and takes about half an hour; bring the seat or buy one in the shop.' },
  { key: 'locks', title: 'Locks', text: 'Insurers in the Netherlands require an ART-approved lock with two stars or more. We sell ART-approved chains and frame locks and fit frame locks for 15 euros.' },
  { key: 'theft-insurance', title: 'Theft insurance', text: 'New bicycles bought from us can be insured against theft for three years through our partner insurer. The premium is about 8 percent of the purchase price per year.' },
  { key: 'engraving', title: 'Frame engraving', text: 'We engrave your postcode and house number into the frame free of charge when you buy a bicycle; for other bicycles engraving costs 7.50 euros. It makes a stolen bicycle easier to return.' },
  { key: 'winter-check', title: 'Winter check', text: 'Our winter check costs 35 euros: we fit winter tyres if you want them, check the lights and treat the chain against salt and rust.' },
  { key: 'lights', title: 'Bicycle lights', text: 'Dutch law requires a white front light and a red rear light after dark. We fit hub dynamo lighting from 95 euros including installation.' },
  { key: 'tyres', title: 'Tyres', text: 'We stock puncture-resistant tyres from Schwalbe in all common sizes. A new tyre including fitting costs from 32 euros per wheel.' },
  { key: 'brakes', title: 'Brakes', text: 'Worn brake pads are replaced for 18 euros per wheel including the pads. Hydraulic disc brakes are bled for 30 euros per brake.' },
  { key: 'gears', title: 'Gear adjustment', text: 'Gears that skip or click are usually caused by a stretched cable. Adjusting the gears costs 15 euros; a new gear cable including fitting costs 20 euros.' },
  { key: 'chain', title: 'Chain replacement', text: 'A chain should be replaced roughly every 3,000 kilometres. A new chain including fitting costs 35 euros; a worn chain left too long also wears out the cassette.' },
  { key: 'wheel-building', title: 'Wheel building', text: 'Our mechanics build wheels by hand to order. A hand-built wheel takes about a week and costs from 180 euros, depending on the rim and hub.' },
  { key: 'bike-fit', title: 'Bike fitting', text: 'A professional bike fit takes 90 minutes and costs 120 euros. We adjust saddle height, handlebar reach and cleat position to your body.' },
  { key: 'course', title: 'Repair courses', text: 'On the first Wednesday of each month we teach a two-hour evening course in basic bicycle maintenance. The course costs 25 euros including coffee and a small tool kit; there is room for eight people.' },
  { key: 'kids-bikes', title: "Children's bicycles", text: "Children outgrow bicycles quickly, so we buy back children's bicycles bought from us for 40 percent of the price within three years." },
  { key: 'students', title: 'Student discount', text: 'Students with a valid university or Hanze card get 10 percent off all repairs. The discount does not apply to new bicycles or rentals.' },
  { key: 'business', title: 'Business customers', text: 'Companies with a fleet of bicycles can take a maintenance contract: we service each bicycle twice a year on site. Ask for a quote by e-mail.' },
  { key: 'contact', title: 'Contact', text: 'Call the workshop on 050 312 4455 during opening hours or send an e-mail to hello@spokeandchain.example. We answer e-mails within one working day.' },
  { key: 'uncollected', title: 'Uncollected bicycles', text: 'Please collect your bicycle within 14 days after we tell you it is ready. After that we charge a storage fee of 2 euros per day; after three months an uncollected bicycle is sold to cover the costs.' },
  { key: 'parts-order', title: 'Ordering parts', text: 'Parts we do not have in stock are ordered from our wholesaler and normally arrive within two to three working days. Special parts from abroad can take two weeks.' },
  { key: 'own-parts', title: 'Bringing your own parts', text: 'You may bring parts you bought elsewhere and we will fit them at the normal labour rate. We do not give a guarantee on parts we did not supply.' },
  { key: 'sustainability', title: 'Sustainability', text: 'Old tyres, tubes and chains go to a recycling partner, and we repair parts rather than replace them where that is safe. Our workshop runs on solar power from its own roof.' },
  { key: 'jobs', title: 'Jobs', text: 'We are looking for an experienced bicycle mechanic for four days a week. Send your CV to jobs@spokeandchain.example.' },
  { key: 'history', title: 'About us', text: "Spoke & Chain was founded in 1998 by Marit de Vries, who started repairing bicycles in her parents' shed. The shop moved to the Vismarkt in 2009." },
  { key: 'vouchers', title: 'Gift vouchers', text: 'Gift vouchers are sold in the shop in any amount from 10 euros. They can be spent on repairs, parts and new bicycles and are valid for one year.' },
];

export interface WorkshopQuestion {
  question: string;
  /** The passage that answers it. */
  expected: string;
  /** What the answer must contain (case-insensitive). */
  fact: string;
}

export const WORKSHOP_QUESTIONS: WorkshopQuestion[] = [
  { question: 'What time do you close on Fridays?', expected: 'opening-hours', fact: '18:00' },
  { question: 'Can I come by on a Monday?', expected: 'opening-hours', fact: 'Mondays' },
  { question: 'When do you take your summer holiday?', expected: 'holiday-closing', fact: 'August' },
  { question: 'Are you working between Christmas and New Year?', expected: 'holiday-closing', fact: 'emergency repairs' },
  { question: 'What is the address of the shop?', expected: 'location', fact: 'Vismarkt 12' },
  { question: 'Where can I park my car when I visit?', expected: 'location', fact: 'Forum garage' },
  { question: 'Do I have to make an appointment for a big repair?', expected: 'appointments', fact: 'two days' },
  { question: 'How much does it cost to fix a flat rear tyre?', expected: 'flat-tyre', fact: '19 euros' },
  { question: 'How long will a puncture repair take?', expected: 'flat-tyre', fact: '30 minutes' },
  { question: 'What do you do in a basic service?', expected: 'basic-service', fact: 'brakes and gears' },
  { question: 'What is the price of a full service?', expected: 'full-service', fact: '129 euros' },
  { question: 'Can you service my Bosch e-bike?', expected: 'e-bike-service', fact: 'Bosch' },
  { question: 'What does an e-bike service cost?', expected: 'e-bike-service', fact: '89 euros' },
  { question: 'Can you check how much capacity my battery still has?', expected: 'battery', fact: '25 euros' },
  { question: 'How long does it take to get a replacement battery?', expected: 'battery', fact: 'ten working days' },
  { question: 'What is your hourly rate for labour?', expected: 'labour-rate', fact: '60 euros an hour' },
  { question: 'Will you call me before a repair gets more expensive than the estimate?', expected: 'labour-rate', fact: 'approval' },
  { question: 'Do I have to pay for an estimate?', expected: 'estimate', fact: 'free of charge' },
  { question: 'For how long is a written estimate valid?', expected: 'estimate', fact: '14 days' },
  { question: 'Can my bicycle be repaired on the same day?', expected: 'turnaround', fact: '10:00' },
  { question: 'Can you collect my bicycle from my home?', expected: 'pickup', fact: '12.50 euros' },
  { question: 'Can I borrow a bike while mine is in the workshop?', expected: 'loan-bike', fact: 'three days' },
  { question: 'How much is it to rent an e-bike for a day?', expected: 'rental', fact: '30 euros' },
  { question: 'How big is the deposit when renting?', expected: 'rental', fact: '50 euros' },
  { question: 'Can I pay with Apple Pay?', expected: 'payment', fact: 'Apple Pay' },
  { question: 'Do you accept cheques?', expected: 'payment', fact: 'do not accept cheques' },
  { question: 'How long is the guarantee on a repair?', expected: 'repair-guarantee', fact: 'six months' },
  { question: 'Do you sell second-hand bikes, and from what price?', expected: 'used-bikes', fact: '149 euros' },
  { question: 'Can I trade in my old bike when I buy a new one?', expected: 'trade-in', fact: 'part exchange' },
  { question: 'Which brands of new bicycles do you stock?', expected: 'new-bikes', fact: 'Gazelle' },
  { question: 'Can I take a new bike for a test ride?', expected: 'new-bikes', fact: 'weekdays' },
  { question: 'How much does a cargo bike service cost?', expected: 'cargo-bikes', fact: '149 euros' },
  { question: 'Can you fit a child seat on my bicycle?', expected: 'child-seats', fact: '20 euros' },
  { question: 'What kind of lock does my insurer require?', expected: 'locks', fact: 'ART-approved' },
  { question: 'Can I insure my new bicycle against theft?', expected: 'theft-insurance', fact: 'three years' },
  { question: 'Can you engrave my postcode into the frame?', expected: 'engraving', fact: 'free of charge' },
  { question: 'What does the winter check include?', expected: 'winter-check', fact: 'lights' },
  { question: 'Is a red rear light required by law?', expected: 'lights', fact: 'red rear light' },
  { question: 'Do you sell puncture-resistant tyres?', expected: 'tyres', fact: 'Schwalbe' },
  { question: 'How much does it cost to replace worn brake pads?', expected: 'brakes', fact: '18 euros' },
  { question: 'My gears keep skipping, what is wrong?', expected: 'gears', fact: 'stretched cable' },
  { question: 'How often should a chain be replaced?', expected: 'chain', fact: '3,000 kilometres' },
  { question: 'How long does it take to build a wheel by hand?', expected: 'wheel-building', fact: 'a week' },
  { question: 'What does a professional bike fit cost?', expected: 'bike-fit', fact: '120 euros' },
  { question: 'When is the maintenance course held?', expected: 'course', fact: 'first Wednesday' },
  { question: 'How many people can join the repair course?', expected: 'course', fact: 'eight people' },
  { question: 'Do you buy back children’s bicycles they have outgrown?', expected: 'kids-bikes', fact: '40 percent' },
  { question: 'Is there a discount for students?', expected: 'students', fact: '10 percent' },
  { question: 'Do you offer maintenance contracts to companies?', expected: 'business', fact: 'twice a year' },
  { question: 'What is your phone number?', expected: 'contact', fact: '050 312 4455' },
  { question: 'What happens if I do not collect my bicycle?', expected: 'uncollected', fact: '2 euros per day' },
  { question: 'How long does it take to order a part that is not in stock?', expected: 'parts-order', fact: 'two to three working days' },
  { question: 'Can I bring parts I bought elsewhere for you to fit?', expected: 'own-parts', fact: 'normal labour rate' },
  { question: 'Who founded Spoke & Chain?', expected: 'history', fact: 'Marit de Vries' },
  { question: 'Are you hiring a bicycle mechanic?', expected: 'jobs', fact: 'jobs@spokeandchain.example' },
  { question: 'How long can a gift voucher be used?', expected: 'vouchers', fact: 'one year' },
  { question: 'Does the workshop use solar power?', expected: 'sustainability', fact: 'solar' },
];

/** Questions the material does not answer: each must be declined or marked unsupported. */
export const UNCOVERED_QUESTIONS: string[] = [
  'Do you repair motorcycles?',
  'Do you sell skateboards?',
  'Can I bring my dog into the shop?',
  'Do you offer financing with monthly instalments?',
  'What is the wifi password?',
  'Do you have a branch in Amsterdam?',
  'Do you sell helmets?',
  'Is there a loyalty card programme?',
  'Do you organise group rides?',
  'What will the weather be like tomorrow?',
  'Can you recommend a good restaurant nearby?',
  'Do you repair scooter engines?',
];

export interface ForeignCorpus {
  language: Exclude<Language, 'en'>;
  passages: Array<{ title: string; content: string }>;
  /** A covered question, the fact its answer holds, and the source line it ends with. */
  covered: { question: string; fact: string; sourceLine: string };
  uncovered: string;
  /** How the offline model's decline opens in this language. */
  declineStart: RegExp;
}

export const FOREIGN_CORPORA: ForeignCorpus[] = [
  {
    language: 'nl',
    passages: [
      { title: 'Openingstijden', content: 'De werkplaats is open van dinsdag tot en met vrijdag van 8:30 tot 18:00 en op zaterdag van 9:00 tot 17:00. Op zondag en maandag zijn we gesloten.' },
      { title: 'Lekke band', content: 'Een lekke band plakken kost 15 euro voor het voorwiel en 19 euro voor het achterwiel. De meeste reparaties zijn binnen 30 minuten klaar.' },
      { title: 'Onderhoudsbeurt', content: 'Een kleine onderhoudsbeurt kost 59 euro. We stellen de remmen en versnellingen af en smeren de ketting.' },
    ],
    covered: { question: 'Wat kost het plakken van een lekke band achter?', fact: '19 euro', sourceLine: 'Bron: Lekke band' },
    uncovered: 'Verkopen jullie ook skateboards?',
    declineStart: /^Sorry, daarover staat niets/,
  },
  {
    language: 'fr',
    passages: [
      { title: 'Horaires', content: "L'atelier est ouvert du mardi au vendredi de 8h30 à 18h00 et le samedi de 9h00 à 17h00. Nous sommes fermés le dimanche et le lundi." },
      { title: 'Crevaison', content: 'La réparation d’une crevaison coûte 15 euros pour la roue avant et 19 euros pour la roue arrière. La plupart des réparations sont faites en 30 minutes.' },
      { title: 'Révision', content: 'La révision de base coûte 59 euros. Nous réglons les freins et les vitesses et nous graissons la chaîne.' },
    ],
    covered: { question: 'Combien coûte la réparation d’une crevaison sur la roue arrière ?', fact: '19 euros', sourceLine: 'Source: Crevaison' },
    uncovered: 'Est-ce que vous vendez des trottinettes électriques ?',
    declineStart: /^Désolé, je n'ai pas d'information/,
  },
  {
    language: 'de',
    passages: [
      { title: 'Öffnungszeiten', content: 'Die Werkstatt ist von Dienstag bis Freitag von 8:30 bis 18:00 Uhr und am Samstag von 9:00 bis 17:00 Uhr geöffnet. Sonntags und montags ist geschlossen.' },
      { title: 'Reifenpanne', content: 'Eine Reifenpanne zu reparieren kostet 15 Euro am Vorderrad und 19 Euro am Hinterrad. Die meisten Reparaturen dauern höchstens 30 Minuten.' },
      { title: 'Inspektion', content: 'Die einfache Inspektion kostet 59 Euro. Wir stellen Bremsen und Schaltung ein und ölen die Kette.' },
    ],
    covered: { question: 'Was kostet die Reparatur einer Reifenpanne am Hinterrad?', fact: '19 Euro', sourceLine: 'Quelle: Reifenpanne' },
    uncovered: 'Verkaufen Sie auch Motorroller?',
    declineStart: /^Entschuldigung, dazu habe ich/,
  },
  {
    language: 'es',
    passages: [
      { title: 'Horario', content: 'El taller abre de martes a viernes de 8:30 a 18:00 y los sábados de 9:00 a 17:00. Los domingos y lunes está cerrado.' },
      { title: 'Pinchazos', content: 'Reparar un pinchazo cuesta 15 euros en la rueda delantera y 19 euros en la rueda trasera. La mayoría de las reparaciones se hacen en 30 minutos.' },
      { title: 'Revisión', content: 'La revisión básica cuesta 59 euros. Ajustamos los frenos y los cambios y engrasamos la cadena.' },
    ],
    covered: { question: '¿Cuánto cuesta reparar un pinchazo en la rueda trasera?', fact: '19 euros', sourceLine: 'Fuente: Pinchazos' },
    uncovered: '¿Venden ustedes patinetes eléctricos?',
    declineStart: /^Lo siento, no tengo información/,
  },
];
