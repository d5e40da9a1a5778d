// src/lsp_ext.ts mirrors src/lsp/ext.rs one to one: the same methods, and for each
// parameter and result struct an interface of the same name with the same (serde) fields,
// optional or nullable exactly where the Rust field is an `Option`.

import * as assert from "node:assert/strict";
import * as fs from "fs";
import { describe, it } from "node:test";
import { extensionFile } from "./paths";
import { rustSource, structFields } from "./rust";

const EXT_RS = rustSource("src/lsp/ext.rs");
const LSP_EXT_TS = fs.readFileSync(extensionFile("src/lsp_ext.ts"), "utf8");

function rustMethods(): string[] {
    return [...EXT_RS.matchAll(/^pub const \w+: &str = "([^"]+)";/gm)].map((m) => m[1]!).sort();
}

function tsMethods(): string[] {
    return [...LSP_EXT_TS.matchAll(/new lc\.(?:RequestType|NotificationType)\d?<[^>]*>\(\s*"([^"]+)"/g)].map((m) => m[1]!).sort();
}

function rustStructs(): string[] {
    return [...EXT_RS.matchAll(/^pub struct (\w+) \{/gm)].map((m) => m[1]!).sort();
}

function tsInterfaces(): Map<string, Map<string, { optional: boolean; type: string }>> {
    const interfaces = new Map<string, Map<string, { optional: boolean; type: string }>>();
    for (const [, name, body] of LSP_EXT_TS.matchAll(/^export interface (\w+) \{([^}]*)\}/gm)) {
        const fields = new Map<string, { optional: boolean; type: string }>();
        for (const [, field, optional, type] of body!.matchAll(/^\s*(\w+)(\??):\s*([^;]+);/gm)) {
            fields.set(field!, { optional: optional === "?", type: type!.trim() });
        }
        interfaces.set(name!, fields);
    }
    return interfaces;
}

describe("lsp_ext.ts", () => {
    it("says it mirrors ext.rs", () => {
        assert.match(LSP_EXT_TS.slice(0, 300), /mirrors `src\/lsp\/ext\.rs`/);
    });

    it("declares the methods of ext.rs", () => {
        assert.ok(rustMethods().length > 0);
        assert.deepEqual(tsMethods(), rustMethods());
    });

    it("declares each struct of ext.rs with the same fields", () => {
        const interfaces = tsInterfaces();
        assert.deepEqual([...interfaces.keys()].sort(), rustStructs());
        for (const struct of rustStructs()) {
            const fields = interfaces.get(struct)!;
            const rust = structFields(EXT_RS, struct);
            assert.deepEqual([...fields.keys()].sort(), rust.map((f) => f.serde).sort(), `${struct}: fields`);
            for (const field of rust) {
                const ts = fields.get(field.serde)!;
                const isOption = field.type.startsWith("Option<");
                const tsOptional = ts.optional || /\bnull\b/.test(ts.type);
                assert.equal(tsOptional, isOption, `${struct}.${field.serde}: Option in Rust exactly when optional or nullable in TS`);
                // A parameter the server defaults (`#[serde(default)]`) may be left out.
                assert.equal(ts.optional, field.defaulted, `${struct}.${field.serde}: \`?\` exactly when #[serde(default)]`);
            }
        }
    });
});
