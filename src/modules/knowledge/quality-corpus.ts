/**
 * A small retrieval benchmark: passages about a fictional company (Northwind Kettles)
 * on distinct topics, and questions that paraphrase them. Used by search.test.ts and
 * the bench.
 */
export interface CorpusPassage {
  key: string;
  title: string;
  text: string;
}

export const QUALITY_CORPUS: CorpusPassage[] = [
  { key: 'shipping-times', title: 'Shipping times', text: 'Orders placed before 2 pm on a working day leave our warehouse the same day. Standard delivery within the Netherlands takes one to two working days; Belgium and Germany take two to four working days.' },
  { key: 'shipping-costs', title: 'Shipping costs', text: 'Delivery is free for orders above 50 euros. Below that amount we charge a flat fee of 4.95 euros per parcel, whatever its weight.' },
  { key: 'international', title: 'International delivery', text: 'We ship to every country in the European Union. Outside the EU we deliver to Switzerland, Norway and the United Kingdom; import duties there are paid by the recipient.' },
  { key: 'returns', title: 'Returns', text: 'You may send a product back within 30 days of receiving it. Print the return label from your account, pack the kettle in its original box and drop it at any post office.' },
  { key: 'refunds', title: 'Refunds', text: 'Once the returned parcel reaches our warehouse we inspect it and refund the purchase price to the original payment method within five working days.' },
  { key: 'warranty', title: 'Warranty', text: 'Every kettle carries a two-year manufacturer guarantee covering defects in materials and workmanship. Limescale damage and broken glass from dropping are not covered.' },
  { key: 'opening-hours', title: 'Opening hours', text: 'Our showroom in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00. It is closed on Sundays and public holidays.' },
  { key: 'customer-service', title: 'Customer service', text: 'The support team answers the telephone on 030 123 4567 on weekdays between 8:30 and 17:30, and replies to e-mail sent to help@northwind.example within one working day.' },
  { key: 'pricing', title: 'Prices', text: 'The Classic kettle costs 39 euros, the Glass kettle 59 euros and the Smart kettle with temperature control 129 euros. All prices include VAT.' },
  { key: 'payment', title: 'Payment methods', text: 'You can pay by iDEAL, credit card (Visa, Mastercard, American Express), PayPal or Klarna pay-later. Business customers may also pay by invoice.' },
  { key: 'descaling', title: 'Descaling', text: 'Descale the kettle every month in hard-water areas: fill it halfway with equal parts water and white vinegar, boil, leave it for an hour and rinse thoroughly.' },
  { key: 'smart-app', title: 'Smart kettle app', text: 'The Smart kettle connects to the Northwind app over Wi-Fi. In the app you can set the water temperature in steps of five degrees and schedule it to boil at a fixed time.' },
  { key: 'capacity', title: 'Capacity', text: 'The Classic and Smart kettles hold 1.7 litres; the Glass kettle holds 1.5 litres. The minimum fill line is at 0.25 litres, enough for one cup.' },
  { key: 'safety', title: 'Safety features', text: 'Each kettle switches off automatically when the water boils and when it is lifted from its base. A dry-boil protection cuts the power if it is switched on empty.' },
  { key: 'spare-parts', title: 'Spare parts', text: 'Replacement filters, lids and power bases can be ordered separately in the spare parts section of the shop. Filters come in packs of three.' },
  { key: 'gift-cards', title: 'Gift vouchers', text: 'Gift vouchers are available in values of 25, 50 and 100 euros. They remain valid for two years and can be spent in the online shop and the showroom.' },
  { key: 'discounts', title: 'Student discount', text: 'Students receive 10 percent off their first order after verifying their student status with a university e-mail address at checkout.' },
  { key: 'order-tracking', title: 'Track your order', text: 'As soon as your parcel leaves the warehouse you receive an e-mail with a tracking link from PostNL or DHL, where you can follow the delivery.' },
  { key: 'cancel-order', title: 'Cancelling an order', text: 'An order can be cancelled free of charge until it has been handed to the carrier. Use the cancel button in your account or contact support quickly.' },
  { key: 'damaged', title: 'Damaged on arrival', text: 'If your kettle arrives broken or dented, photograph the packaging and the product and report it within 48 hours; we send a replacement at no cost.' },
  { key: 'account', title: 'Your account', text: 'Creating an account lets you see past orders, download invoices and save addresses. You can delete your account at any time from the privacy settings.' },
  { key: 'privacy', title: 'Privacy', text: 'We store personal data only to process orders and never sell it to third parties. Data is kept for seven years because tax law requires it.' },
  { key: 'sustainability', title: 'Sustainability', text: 'Our kettles are made from 70 percent recycled stainless steel and packed in cardboard without plastic. We plant a tree for every hundred kettles sold.' },
  { key: 'recycling', title: 'Recycling old kettles', text: 'Bring your old kettle, of any brand, to the showroom and we dispose of it responsibly through the electronics recycling scheme and give you a 5 euro voucher.' },
  { key: 'business', title: 'Business orders', text: 'Offices and hotels ordering more than 20 kettles receive volume pricing. Ask our sales team for a quote and delivery on pallets.' },
  { key: 'energy', title: 'Energy use', text: 'Boiling one litre takes about two and a half minutes at 2200 watts. Boiling only the water you need saves electricity and money.' },
  { key: 'colours', title: 'Colours', text: 'The Classic kettle comes in matte black, cream white, sage green and brushed steel. The Glass kettle is only made in clear glass with a steel base.' },
  { key: 'noise', title: 'Quiet boiling', text: 'The Smart kettle has a quiet-boil mode that lowers the heating power near the boiling point, making it about half as loud as an ordinary kettle.' },
  { key: 'jobs', title: 'Working at Northwind', text: 'We are hiring warehouse staff and software developers in Utrecht. Send your CV and a short motivation letter to jobs@northwind.example.' },
  { key: 'history', title: 'About us', text: 'Northwind Kettles was founded in 2011 by two engineers in a garage in Amersfoort and moved to its current Utrecht premises in 2018.' },
];

export interface CorpusQuestion {
  question: string;
  expected: string;
}

export const QUALITY_QUESTIONS: CorpusQuestion[] = [
  { question: 'How long does delivery take to Germany?', expected: 'shipping-times' },
  { question: 'Do I have to pay for shipping on a small order?', expected: 'shipping-costs' },
  { question: 'Can you deliver my order to Norway?', expected: 'international' },
  { question: 'How many days do I have to send a kettle back?', expected: 'returns' },
  { question: 'When will I get my money back after returning something?', expected: 'refunds' },
  { question: 'Is limescale damage covered by the guarantee?', expected: 'warranty' },
  { question: 'Is the showroom open on Saturday?', expected: 'opening-hours' },
  { question: 'What is the phone number of support?', expected: 'customer-service' },
  { question: 'How much does the Smart kettle cost?', expected: 'pricing' },
  { question: 'Can I pay with PayPal?', expected: 'payment' },
  { question: 'How do I remove limescale with vinegar?', expected: 'descaling' },
  { question: 'Can I schedule the kettle to boil from my phone app?', expected: 'smart-app' },
  { question: 'How many litres does the Glass kettle hold?', expected: 'capacity' },
  { question: 'Does the kettle switch off automatically when it boils?', expected: 'safety' },
  { question: 'Where can I order a replacement filter or lid?', expected: 'spare-parts' },
  { question: 'How long is a gift voucher valid?', expected: 'gift-cards' },
  { question: 'Is there a discount for students?', expected: 'discounts' },
  { question: 'How can I follow my parcel with a tracking link?', expected: 'order-tracking' },
  { question: 'I want to cancel my order, is that possible?', expected: 'cancel-order' },
  { question: 'My kettle arrived broken, what should I do?', expected: 'damaged' },
  { question: 'Where can I download my invoices?', expected: 'account' },
  { question: 'Do you sell my personal data to third parties?', expected: 'privacy' },
  { question: 'Is the steel recycled and is the packaging plastic-free?', expected: 'sustainability' },
  { question: 'Can I bring my old kettle for recycling?', expected: 'recycling' },
  { question: 'Do hotels get volume pricing on large orders?', expected: 'business' },
  { question: 'How much electricity does boiling a litre use?', expected: 'energy' },
  { question: 'Which colours is the Classic kettle available in?', expected: 'colours' },
  { question: 'Is there a quiet mode so the kettle is less loud?', expected: 'noise' },
  { question: 'Are you hiring software developers?', expected: 'jobs' },
  { question: 'When was the company founded?', expected: 'history' },
];
