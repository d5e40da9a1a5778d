// package.json's `contributes.configuration` against the server's settings: every field of
// `ServerOptions` (src/lsp/config.rs, `training` expanded into `TrainingOptions`) is a
// `rulelens.*` setting of the same camelCase name, type, enum and default, and there are
// no others but the extension's own (`rulelens.server.path`, `rulelens.trace.server`).

import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packageJson } from "./paths";
import { constValue, enumValues, Field, rustNumber, rustSource, structFields } from "./rust";

const CONFIG_RS = "src/lsp/config.rs";
const EXTENSION_ONLY = ["rulelens.server.path", "rulelens.trace.server"];

/** Where each enum a setting takes is declared. */
const ENUM_FILES: Record<string, string> = {
    DeviceName: CONFIG_RS,
    ModelKind: "src/model/checkpoint.rs",
};

interface ServerSetting {
    key: string;
    field: Field;
    /** The Rust type inside `Option<…>` (or `Option<Option<…>>`). */
    inner: string;
    /** Whether `null` clears it (`Option<Option<…>>`): a setting whose default is none. */
    clearable: boolean;
}

function serverSettings(): ServerSetting[] {
    const source = rustSource(CONFIG_RS);
    const settings: ServerSetting[] = [];
    const walk = (struct: string, prefix: string) => {
        for (const field of structFields(source, struct)) {
            const optional = /^Option<(.+)>$/.exec(field.type)?.[1];
            assert.ok(optional, `${struct}::${field.name} is not an Option: every option is optional`);
            const cleared = /^Option<(.+)>$/.exec(optional)?.[1];
            const inner = cleared ?? optional;
            if (new RegExp(`^pub struct ${inner} \\{`, "m").test(source)) {
                walk(inner, `${prefix}${field.serde}.`);
            } else {
                settings.push({ key: `${prefix}${field.serde}`, field, inner, clearable: cleared !== undefined });
            }
        }
    };
    walk("ServerOptions", "rulelens.");
    return settings;
}

function jsonTypeOf(inner: string): string {
    if (inner === "bool") return "boolean";
    if (/^(usize|u64|u32|u16|u8|i64|i32)$/.test(inner)) return "integer";
    if (/^(f64|f32)$/.test(inner)) return "number";
    if (inner === "PathBuf" || inner === "String" || inner in ENUM_FILES) return "string";
    if (/^(BTreeMap|HashMap)</.test(inner)) return "object";
    throw new Error(`no JSON type known for ${inner}: add it to jsonTypeOf`);
}

/** The serde name of `Enum::Variant`. */
function variantName(path: string): string {
    const [name, variant] = path.split("::");
    const file = ENUM_FILES[name!];
    assert.ok(file && variant, `unknown enum value ${path}`);
    const value = enumValues(rustSource(file), name!).get(variant!);
    assert.ok(value !== undefined, `no variant ${path}`);
    return value;
}

/** `training.FIELD.unwrap_or(VALUE)` in `Settings::resolve`. */
function resolvedDefault(field: string): string {
    const found = new RegExp(`training\\.${field}\\.unwrap_or\\(([^()]+)\\)`).exec(rustSource(CONFIG_RS));
    assert.ok(found, `no training.${field}.unwrap_or(…) in ${CONFIG_RS}`);
    return found[1]!.trim();
}

/** A field of `impl Default for TrainConfig` written as a literal. */
function trainConfigDefault(field: string): string {
    const source = rustSource("src/model/train.rs");
    const body = source.slice(source.indexOf("impl Default for TrainConfig"));
    const found = new RegExp(`\\b${field}: ([^,\\n]+),`).exec(body);
    assert.ok(found, `no ${field} in impl Default for TrainConfig`);
    return found[1]!.trim();
}

function constant(file: string, name: string): number {
    return rustNumber(constValue(rustSource(file), name));
}

/**
 * Each server setting's default, read from where the server takes it (`null`: the server
 * decides without a value, for example β depends on whether embeddings are set). A new
 * setting needs a line here.
 */
const DEFAULTS: Record<string, () => unknown> = {
    "rulelens.training.enabled": () => JSON.parse(resolvedDefault("enabled")),
    "rulelens.training.device": () => variantName(resolvedDefault("device")),
    "rulelens.training.model": () => variantName(resolvedDefault("model")),
    "rulelens.training.embeddings": () => null,
    "rulelens.training.beta": () => null,
    "rulelens.training.epochs": () => constant("src/model/train.rs", trainConfigDefault("epochs")),
    "rulelens.training.patience": () => constant("src/model/train.rs", trainConfigDefault("patience")),
    "rulelens.training.learningRate": () => constant("src/model/train.rs", trainConfigDefault("learning_rate")),
    "rulelens.training.batchSize": () => constant("src/model/train.rs", trainConfigDefault("batch_size")),
    "rulelens.training.seed": () => rustNumber(trainConfigDefault("seed")),
    "rulelens.training.modelCache": () => null,
    "rulelens.minPrecision": () => constant("src/ide/findings.rs", "DEFAULT_MIN_PRECISION"),
    "rulelens.conflictShare": () => constant("src/ide/findings.rs", "DEFAULT_CONFLICT_SHARE"),
    "rulelens.maxLineDiagnostics": () => constant("src/ide/corpus_lines.rs", "DEFAULT_MAX_MISCLASSIFIED"),
    "rulelens.reconstructThreshold": () => constant("src/explain/reconstruct.rs", "DEFAULT_THRESHOLD"),
    "rulelens.corpora": () => ({}),
};

describe("contributes.configuration", () => {
    const properties: Record<string, any> = packageJson().contributes.configuration.properties;
    const server = serverSettings();

    it("has exactly the server's settings and the extension's own", () => {
        const expected = [...server.map((s) => s.key), ...EXTENSION_ONLY].sort();
        assert.deepEqual(Object.keys(properties).sort(), expected);
    });

    it("gives each setting the JSON type of its Rust type", () => {
        for (const { key, inner, clearable } of server) {
            const declared: string[] = [properties[key].type].flat();
            assert.ok(declared.includes(jsonTypeOf(inner)), `${key}: type ${declared} for Rust ${inner}`);
            const nullable = declared.includes("null");
            assert.equal(nullable, properties[key].default === null, `${key}: null is its type exactly when it is its default`);
            // The extension sends null for a cleared setting: the server must read it as such.
            assert.equal(nullable, clearable, `${key}: null in package.json exactly when the server's field is Option<Option<…>>`);
        }
    });

    it("lists each enum's serde names", () => {
        for (const { key, inner } of server) {
            const file = ENUM_FILES[inner];
            if (file) {
                const values = [...enumValues(rustSource(file), inner).values()];
                assert.deepEqual(properties[key].enum, values, `${key}: enum`);
            } else {
                assert.equal(properties[key].enum, undefined, `${key} is not an enum in Rust`);
            }
        }
    });

    it("has the server's defaults", () => {
        for (const { key } of server) {
            const rust = DEFAULTS[key];
            assert.ok(rust, `${key}: say in DEFAULTS (tests/unit/settings.test.ts) where its default comes from`);
            assert.deepEqual(properties[key].default, rust(), `${key}: default`);
        }
        assert.deepEqual(Object.keys(DEFAULTS).sort(), server.map((s) => s.key).sort());
    });

    it("agrees with the defaults the Rust doc comments state", () => {
        for (const { key, field } of server) {
            const stated = /\(default ([^)]+)\)/.exec(field.doc)?.[1];
            if (stated === undefined || /[`\s]/.test(stated.replace(/,/g, ""))) {
                continue; // no default stated, or not a plain value (`.rulelens/models` …)
            }
            const value = stated === "true" || stated === "false" ? stated === "true" : rustNumber(stated.replace(/,/g, ""));
            assert.deepEqual(properties[key].default, value, `${key}: the doc comment says (default ${stated})`);
        }
    });

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
});
