// Just enough reading of the server's Rust sources for the tests to compare the extension
// with them: struct fields with their serde names.

import * as fs from "fs";
import { repoFile } from "./paths";

export function rustSource(relative: string): string {
    return fs.readFileSync(repoFile(relative), "utf8");
}

/** The `{ … }` body of `pub struct NAME` / `pub enum NAME`, with the attributes above it. */
function item(source: string, keyword: "struct", name: string): { attributes: string; body: string } {
    const start = source.search(new RegExp(`^pub ${keyword} ${name} \\{`, "m"));
    if (start < 0) {
        throw new Error(`no \`pub ${keyword} ${name}\``);
    }
    const end = source.indexOf("\n}", start);
    const before = source.slice(0, start).split("\n");
    const attributes: string[] = [];
    for (let i = before.length - 2; i >= 0 && /^(#\[|\/\/\/)/.test(before[i]!); i--) {
        attributes.push(before[i]!);
    }
    return { attributes: attributes.join("\n"), body: source.slice(source.indexOf("{", start) + 1, end) };
}

function renameAll(attributes: string): string | undefined {
    return /#\[serde\([^\]]*rename_all = "([^"]+)"/.exec(attributes)?.[1];
}

/** A Rust identifier (snake_case field or PascalCase variant) as serde's rename_all writes it. */
export function serdeName(identifier: string, rule: string | undefined): string {
    const words = identifier.includes("_")
        ? identifier.split("_")
        : identifier.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
    switch (rule) {
        case undefined:
            return identifier;
        case "lowercase":
            return identifier.toLowerCase();
        case "camelCase":
            return words.map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1))).join("");
        case "kebab-case":
            return words.map((word) => word.toLowerCase()).join("-");
        default:
            throw new Error(`rename_all = "${rule}" is not handled here`);
    }
}

export interface Field {
    /** The Rust name. */
    name: string;
    /** The name on the wire. */
    serde: string;
    type: string;
    /** The doc comment. */
    doc: string;
    /** Whether it has `#[serde(default)]`. */
    defaulted: boolean;
}

/** The `pub` fields of a struct. */
export function structFields(source: string, name: string): Field[] {
    const { attributes, body } = item(source, "struct", name);
    const rule = renameAll(attributes);
    const fields: Field[] = [];
    let doc: string[] = [];
    let defaulted = false;
    for (const line of body.split("\n").map((l) => l.trim())) {
        if (line.startsWith("///")) {
            doc.push(line.slice(3).trim());
        } else if (line.startsWith("#[serde(default")) {
            defaulted = true;
        } else {
            const field = /^pub (\w+): (.+),$/.exec(line);
            if (field) {
                fields.push({ name: field[1]!, serde: serdeName(field[1]!, rule), type: field[2]!, doc: doc.join(" "), defaulted });
            }
            doc = [];
            defaulted = false;
        }
    }
    return fields;
}
