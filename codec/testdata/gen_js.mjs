// Regenerates jsnumber.txt and normalize.jsonl from JavaScript itself, so
// the Go tests pin kvdeck's number formatting and JSON normalization to what
// the reference runtime does. Run from this directory with Node 20+:
//   node gen_js.mjs
// The output is deterministic (seeded PRNG); commit it.
import { writeFileSync } from "node:fs";

let seed = 0x9e3779b9;
function rnd() { // xorshift32
  seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
  return seed;
}
const buf = new DataView(new ArrayBuffer(8));
function fromBits(hi, lo) { buf.setUint32(0, hi); buf.setUint32(4, lo); return buf.getFloat64(0); }
function bits(x) { buf.setFloat64(0, x); return buf.getUint32(0).toString(16).padStart(8, "0") + buf.getUint32(4).toString(16).padStart(8, "0"); }

const nums = [0, -0, 1, -1, 0.1, 0.2, 0.30000000000000004, 1e21, 1e-7, 1e-6, 9.999999999999999e20,
  999999999999999900000, 1e20, 123e-20, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
  9007199254740991, 9007199254740992, 18446744073709552000, 1767312000000, -123.456, 12000, 0.000001,
  0.0000001, 0.00000123, 1.5e-7, 100, 1e100, 1.2345678901234567e-5, Infinity, -Infinity, NaN];
for (let e = -330; e <= 310; e++) { nums.push(Number("1e" + e)); nums.push(Number("1.5e" + e)); nums.push(Number("7.123456789e" + e)); }
for (let i = 0; i < 2000; i++) nums.push(fromBits(rnd(), rnd()));
for (let i = 0; i < 500; i++) nums.push((rnd() % 100000) / 1000 * (rnd() % 2 ? 1 : -1));
for (let i = 0; i < 300; i++) nums.push(fromBits(rnd() & 0x000fffff, rnd())); // subnormals
writeFileSync("jsnumber.txt", nums.map((x) => bits(x) + " " + String(x)).join("\n") + "\n");

const inputs = [
  `{"b":1,"4294967295":2,"4294967294":3,"1":4,"01":5,"-0":6,"b":7,"a":8,"1":9,"9007199254740993":10,"__proto__":11}`,
  `["\\ud800","\\udc00\\ud800","\\ud83d\\ude00","\u2028\u2029\u007f\u0080","\\u2028","\\/","\\u0000\\u001F\\u0020"]`,
  `[1e400,-1e400,-1e-400,-0,-0.0,1e21,1e-7,123e-20,0.000001,1.5e300,100,1e20,12e3,1E+2,0e10,-0e-0]`,
  `  { "a" : [ 1 , 2 ] ,"b":{ } , "c" : [ ] }  `,
  `"<b>&\\"'</b>"`, `"\\b\\f\\n\\r\\t\\u0007\\u001f"`, `123456789012345678901234567890`, `0.1e1`,
  `{"nums":[1e+21,1e-7,-0,5e-324,1.7976931348623157e+308,-123.456,9007199254740991,12e3]}`,
  `{"zeta":1,"alpha":2,"mid":{"z":null,"a":[]}}`, `{"10":1,"9":2,"a":3,"0":4,"4294967294":5,"00":6}`,
  `{"a":1,"a":{"b":2},"a":[3]}`, `true`, `false`, `null`, `""`, `"\\uD834\\uDD1E"`, `"\\uDD1E\\uD834"`,
  `[[[[[[[[[[]]]]]]]]]]`, `{"":0,"\\u0031":1}`, `"é\u00e9\u{1F600}"`,
];
const words = ["a", "b", "0", "1", "10", "2", "__proto__", "é", "\\u2028", "x\\ny", "-1", "007", "4294967295"];
function gen(d) {
  const r = rnd() % (d > 3 ? 6 : 9);
  switch (r) {
    case 0: return "null";
    case 1: return rnd() % 2 ? "true" : "false";
    case 2: { const m = ["0", "-0", "1.5", "1e21", "1e-7", "123456789012345678901", "-2.5E-3", "0.30000000000000004", "1e400", "5e-324", "12e3"]; return m[rnd() % m.length]; }
    case 3: return String(fromBits(rnd(), rnd())).replace("Infinity", "1e999").replace("NaN", "0");
    case 4: return JSON.stringify(String.fromCharCode(rnd() % 0x30, 0x60 + rnd() % 0x20, rnd() % 0xffff));
    case 5: return `"${words[rnd() % words.length]}"`;
    case 6: case 7: { const n = rnd() % 4; const a = []; for (let i = 0; i < n; i++) a.push(gen(d + 1)); return "[" + a.join(" , ") + "]"; }
    default: { const n = rnd() % 5; const a = []; for (let i = 0; i < n; i++) a.push(`"${words[rnd() % words.length]}":` + gen(d + 1)); return "{" + a.join(",") + "}"; }
  }
}
for (let i = 0; i < 400; i++) inputs.push(gen(0));
writeFileSync("normalize.jsonl", inputs.map((s) => JSON.stringify({ in: s, out: JSON.stringify(JSON.parse(s)) })).join("\n") + "\n");
