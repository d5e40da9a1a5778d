// Lists a .vsix (a zip) and checks it holds what VS Code loads and nothing else: the
// manifest, README, language configuration, grammar (identical to the repository's) and
// the bundle. Reads the zip's central directory itself, so that it needs no unzip.
// Usage: node scripts/check-vsix.mjs rulelens.vsix

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const vsix = process.argv[2];
if (!vsix) {
    console.error("usage: node scripts/check-vsix.mjs FILE.vsix");
    process.exit(2);
}
const zip = readFileSync(vsix);

/** The zip's entries: name, compression method, sizes, local header offset. */
function entries(buffer) {
    const end = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (end < 0) throw new Error(`${vsix} is not a zip file`);
    const count = buffer.readUInt16LE(end + 10);
    let at = buffer.readUInt32LE(end + 16);
    const result = [];
    for (let i = 0; i < count; i++) {
        if (buffer.readUInt32LE(at) !== 0x02014b50) throw new Error("bad central directory");
        const nameLength = buffer.readUInt16LE(at + 28);
        const extraLength = buffer.readUInt16LE(at + 30);
        const commentLength = buffer.readUInt16LE(at + 32);
        result.push({
            name: buffer.toString("utf8", at + 46, at + 46 + nameLength),
            method: buffer.readUInt16LE(at + 10),
            compressed: buffer.readUInt32LE(at + 20),
            size: buffer.readUInt32LE(at + 24),
            offset: buffer.readUInt32LE(at + 42),
        });
        at += 46 + nameLength + extraLength + commentLength;
    }
    return result;
}

function contents(buffer, entry) {
    const header = entry.offset;
    const start = header + 30 + buffer.readUInt16LE(header + 26) + buffer.readUInt16LE(header + 28);
    const data = buffer.subarray(start, start + entry.compressed);
    if (entry.method === 0) return data;
    if (entry.method === 8) return inflateRawSync(data);
    throw new Error(`${entry.name}: compression method ${entry.method}`);
}

const listed = entries(zip);
for (const entry of listed) {
    console.log(`${String(entry.size).padStart(9)}  ${entry.name}`);
}
console.log(`${listed.length} files, ${zip.length} bytes`);

const names = new Set(listed.map((e) => e.name));
const required = [
    "extension.vsixmanifest",
    "[Content_Types].xml",
    "extension/package.json",
    "extension/readme.md",
    "extension/language-configuration.json",
    "extension/syntaxes/rules.tmLanguage.json",
    "extension/dist/main.js",
];
const allowed = new Set([...required, "extension/server/rulelens", "extension/server/rulelens.exe"]);
const problems = [];
for (const name of required) {
    if (!names.has(name)) problems.push(`missing ${name}`);
}
for (const name of names) {
    if (!allowed.has(name)) problems.push(`unexpected ${name}`);
}
const byName = new Map(listed.map((e) => [e.name, e]));
if (byName.has("extension/package.json")) {
    const manifest = JSON.parse(contents(zip, byName.get("extension/package.json")).toString("utf8"));
    const main = `extension/${manifest.main.replace(/^\.\//, "")}`;
    if (!names.has(main)) problems.push(`package.json's main, ${manifest.main}, is not in the package`);
    for (const grammar of manifest.contributes.grammars) {
        const file = `extension/${grammar.path.replace(/^\.\//, "")}`;
        if (!names.has(file)) problems.push(`grammar ${grammar.path} is not in the package`);
    }
}
if (byName.has("extension/syntaxes/rules.tmLanguage.json")) {
    const packaged = contents(zip, byName.get("extension/syntaxes/rules.tmLanguage.json"));
    const original = readFileSync(join(here, "..", "..", "..", "grammars", "rules.tmLanguage.json"));
    if (!packaged.equals(original)) problems.push("the packaged grammar differs from grammars/rules.tmLanguage.json");
}
if (problems.length > 0) {
    console.error(`${vsix}:\n  ${problems.join("\n  ")}`);
    process.exit(1);
}
console.log(`${vsix}: contents as expected`);
