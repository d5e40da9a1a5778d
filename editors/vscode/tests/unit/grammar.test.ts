// The extension ships a committed copy of grammars/rules.tmLanguage.json (the grammar that
// grammars/textmate-test tests); this checks the copy is the same, byte for byte.

import * as assert from "node:assert/strict";
import * as fs from "fs";
import { describe, it } from "node:test";
import { extensionFile, packageJson, readJson, repoFile } from "./paths";

describe("TextMate grammar", () => {
    const manifest = packageJson();

    it("is a byte-identical copy of grammars/rules.tmLanguage.json", () => {
        const [grammar] = manifest.contributes.grammars;
        const copy = fs.readFileSync(extensionFile(grammar.path));
        const original = fs.readFileSync(repoFile("grammars/rules.tmLanguage.json"));
        assert.ok(
            copy.equals(original),
            `${grammar.path} differs from grammars/rules.tmLanguage.json: copy it again ` +
                "(cp ../../grammars/rules.tmLanguage.json syntaxes/)",
        );
    });

    it("is contributed for the rules language with the grammar's scope name", () => {
        assert.equal(manifest.contributes.grammars.length, 1);
        const [grammar] = manifest.contributes.grammars;
        assert.equal(grammar.language, "rules");
        assert.equal(grammar.scopeName, readJson(extensionFile(grammar.path)).scopeName);
        assert.equal(grammar.scopeName, "source.rules");
    });
});
