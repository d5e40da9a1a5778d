// Rulelens: Show Report: the command it runs writes the page to standard output, and the
// page shown when it fails escapes what the command said.

import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeHtml, failurePage, reportArguments } from "../../src/report";

describe("Show Report", () => {
    it("runs `rulelens report RULES -o -`", () => {
        assert.deepEqual(reportArguments("/w/sms.rules"), ["report", "/w/sms.rules", "-o", "-"]);
    });

    it("escapes the failure's message and file name", () => {
        assert.equal(escapeHtml(`<a href="x">&'`), "&#60;a href=&#34;x&#34;&#62;&#38;&#39;");
        const page = failurePage("/w/<b>.rules", "error: <script>alert(1)</script>");
        assert.ok(!page.includes("<script>"));
        assert.ok(page.includes("&#60;script&#62;alert(1)&#60;/script&#62;"));
        assert.ok(page.includes("/w/&#60;b&#62;.rules"));
    });
});
