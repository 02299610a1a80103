-- The search's folding (migrations 036 and 045) made cheaper for a text all in ASCII (issue 27, capacity;
-- docs/performance.md "Capacity", tenth round): its lower case is its fold, as NFD leaves ASCII as it is and the
-- combining marks and the letters the fold maps are all outside ASCII. Tested by length: in UTF-8 (which normalize
-- needs, so the fold ran on no other encoding) a text has as many bytes as characters only when all are ASCII.
-- About a third of the fold's cost for such a text (16.7 -> 6.2 us a message on PGlite); the result is the same
-- (src/modules/chat/recording.test.ts).
create or replace function conversation_search_fold(content text) returns text language plpgsql immutable parallel safe as $$
declare
  lowered text := lower(content);
  folded text;
begin
  if octet_length(lowered) = length(lowered) then
    return lowered;
  end if;
  folded := replace(replace(replace(replace(replace(replace(
      regexp_replace(normalize(lowered, NFD), '[\u0300-\u036f]', '', 'g'),
      'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'Æ', 'ae'), 'Œ', 'oe'), 'ẞ', 'ss');
  if folded ~ '[øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς]' then
    return translate(folded,
      'øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς',
      'oollddhhiабвгдежзиклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψωσ');
  end if;
  return folded;
end
$$;
