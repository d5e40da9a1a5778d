// package.json's `contributes.configuration`: what the extension itself needs of it. That
// every server setting is there with the server's own name, type, values and default (and
// no other setting but the extension's own) is checked on the Rust side, against the one
// declaration of each setting: `src/lsp/config.rs`'s test
// `the_vs_code_extension_declares_every_setting_with_the_servers_default`.

import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packageJson } from "./paths";

describe("contributes.configuration", () => {
    const properties: Record<string, any> = packageJson().contributes.configuration.properties;

    it("describes every setting", () => {
        for (const [key, property] of Object.entries(properties)) {
            assert.ok(property.description || property.markdownDescription, `${key} has no description`);
        }
    });

    it("keeps rulelens.trace.server the standard trace setting", () => {
        const trace = properties["rulelens.trace.server"];
        assert.deepEqual(trace.enum, ["off", "messages", "verbose"]);
        assert.equal(trace.default, "off");
    });

    it("sends null for a setting whose default is none, so that clearing it reaches the server", () => {
        for (const [key, property] of Object.entries(properties)) {
            const nullable = [property.type].flat().includes("null");
            assert.equal(nullable, property.default === null, `${key}: null is its type exactly when it is its default`);
        }
    });
});
