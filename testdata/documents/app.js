// A small script with the escapes people write.
'use strict';

const greeting = "Hello,\n\tworld!";
const name = 'Zo\u00eb';
const emoji = "\u{1F600} \uD83D\uDE00";
const quote = 'It\'s "fine"';
const path = 'C:\\Users\\zoe\\app';
const re = /^\d+(\.\d+)?$/;
const tpl = `template ${name} with ${1 + 2} and \`ticks\``;
const hex = "\x41\x42\x43";

function render(items) {
  return items.map((it) => `<li>${it.title}</li>`).join('\n');
}

console.log(greeting, name, emoji, quote, path, re.test('42'), tpl, hex);
