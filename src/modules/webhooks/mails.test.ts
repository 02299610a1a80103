import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LANGUAGES } from '../agents/schemas.ts';
import { switchedOffMail } from './mails.ts';

test('the switch-off notice names the webhook and its host and links to its dashboard page in each of the five languages, each in its own words', () => {
  const subjects = new Set<string>();
  for (const language of LANGUAGES) {
    const mail = switchedOffMail(language, { id: 'wh_123', host: 'hooks.example.com', page: 'https://parley.example.net/app/webhooks/wh_123' });
    assert.match(mail.subject, /hooks\.example\.com/, language);
    assert.match(mail.text, /wh_123/, language);
    assert.match(mail.text, /https:\/\/parley\.example\.net\/app\/webhooks\/wh_123\n/, `${language}: links to the dashboard's page`);
    assert.doesNotMatch(mail.text, /API/, `${language}: never tells to call the API`);
    assert.match(mail.html, new RegExp(`lang="${language}"`), language);
    subjects.add(mail.subject);
  }
  assert.equal(subjects.size, LANGUAGES.length);
});
