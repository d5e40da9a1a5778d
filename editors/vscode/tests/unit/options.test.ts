import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { initializationOptions, serverPathSetting } from "../../src/config";

describe("initializationOptions", () => {
    it("sends the rulelens section without the extension's settings and unset values", () => {
        // What workspace.getConfiguration("rulelens") holds: every setting (defaults
        // included) and the object's methods.
        const settings = {
            server: { path: "/opt/rulelens" },
            trace: { server: "verbose" },
            training: {
                enabled: false,
                device: "cpu",
                model: "fa-gru",
                embeddings: null,
                beta: null,
                epochs: 3,
                patience: 5,
                learningRate: 0.001,
                batchSize: 32,
                seed: 0,
                modelCache: null,
            },
            minPrecision: 0.7,
            conflictShare: 0.25,
            maxLineDiagnostics: 1000,
            reconstructThreshold: 0.5,
            corpora: { "spam.rules": { train: "data/train.tsv" } },
            get: () => undefined,
            has: () => false,
        };
        assert.deepEqual(initializationOptions(settings), {
            training: {
                enabled: false,
                device: "cpu",
                model: "fa-gru",
                epochs: 3,
                patience: 5,
                learningRate: 0.001,
                batchSize: 32,
                seed: 0,
            },
            minPrecision: 0.7,
            conflictShare: 0.25,
            maxLineDiagnostics: 1000,
            reconstructThreshold: 0.5,
            corpora: { "spam.rules": { train: "data/train.tsv" } },
        });
    });

    it("keeps false, 0 and empty strings and objects", () => {
        assert.deepEqual(initializationOptions({ training: { enabled: false, seed: 0, embeddings: "" }, corpora: {} }), {
            training: { enabled: false, seed: 0, embeddings: "" },
            corpora: {},
        });
    });

    it("does not change its argument", () => {
        const settings = { server: { path: "x" }, training: { beta: null } };
        initializationOptions(settings);
        assert.deepEqual(settings, { server: { path: "x" }, training: { beta: null } });
    });

    it("gives an empty object for no settings", () => {
        assert.deepEqual(initializationOptions(undefined), {});
        assert.deepEqual(initializationOptions(null), {});
        assert.deepEqual(initializationOptions("rulelens"), {});
    });

    it("reads rulelens.server.path", () => {
        const source = (value: unknown) => ({ get: <T>(key: string) => (key === "server.path" ? (value as T) : undefined) });
        assert.equal(serverPathSetting(source("/opt/rulelens")), "/opt/rulelens");
        assert.equal(serverPathSetting(source(null)), undefined);
        assert.equal(serverPathSetting(source(42)), undefined);
    });
});
