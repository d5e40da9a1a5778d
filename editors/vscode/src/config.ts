// The extension's settings: where the server is, and what it is sent. Pure functions of
// their inputs (no `vscode` import at run time), so that the unit tests run them in node.
//
// Every `rulelens.*` setting but `rulelens.server.*` and `rulelens.trace.*` is one of the
// server's (`ServerOptions` in src/lsp/config.rs, same names); tests/unit/settings.test.ts
// checks that package.json lists exactly those.

import * as path from "path";

/** The configuration section: `rulelens.*` settings, and what the server reads. */
export const SECTION = "rulelens";

/** Settings the extension reads itself and does not send to the server. */
export const EXTENSION_ONLY = ["server", "trace"] as const;

/** The executable's name, without `.exe`. */
export const SERVER_NAME = "rulelens";

/** Where the server was found. */
export type ServerSource = "setting" | "bundled" | "path";

export type Discovery =
    | { ok: true; path: string; source: ServerSource }
    | { ok: false; message: string };

export interface DiscoveryInputs {
    /** The `rulelens.server.path` setting (unset: `null`, `undefined` or blank). */
    setting: string | null | undefined;
    /** The extension's folder; a bundled server is `server/rulelens[.exe]` inside it. */
    extensionPath: string;
    /** The entries of `PATH`, in order (see `splitPathVariable`). */
    pathEntries: readonly string[];
    platform: NodeJS.Platform;
    /** Whether a file is there. */
    exists: (file: string) => boolean;
    /** For a setting that starts with `~/`. */
    homeDir?: string;
    /** For a relative setting: the first workspace folder. */
    workspaceFolder?: string;
}

function pathModule(platform: NodeJS.Platform): path.PlatformPath {
    return platform === "win32" ? path.win32 : path.posix;
}

function executableName(platform: NodeJS.Platform): string {
    return platform === "win32" ? `${SERVER_NAME}.exe` : SERVER_NAME;
}

/** `PATH`'s entries (`;`-separated on Windows, `:` elsewhere), without empty ones. */
export function splitPathVariable(value: string | undefined, platform: NodeJS.Platform): string[] {
    const separator = platform === "win32" ? ";" : ":";
    return (value ?? "")
        .split(separator)
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
}

/** The `rulelens.server.path` setting made absolute, when it can be. */
function settingPath(setting: string, inputs: DiscoveryInputs): string {
    const p = pathModule(inputs.platform);
    let file = setting;
    if (inputs.homeDir !== undefined && (file === "~" || file.startsWith("~/") || file.startsWith("~\\"))) {
        file = p.join(inputs.homeDir, file.slice(1));
    }
    if (!p.isAbsolute(file) && inputs.workspaceFolder !== undefined) {
        file = p.join(inputs.workspaceFolder, file);
    }
    return file;
}

/**
 * Where the setting goes in a remote window, where the extension (and so the server) runs
 * on the remote machine and paths are the remote machine's.
 */
const REMOTE_NOTE =
    `In a remote window (Remote-SSH, WSL, a container, code-server) the server runs on the ` +
    `remote machine: give its path there, in the Remote settings (Preferences: Open Remote ` +
    `Settings) when it differs from the one in your User settings.`;

/**
 * Finds the server: the `rulelens.server.path` setting if set (and then only there), else
 * the binary bundled with the extension, else `rulelens` on `PATH`.
 */
export function findServer(inputs: DiscoveryInputs): Discovery {
    const p = pathModule(inputs.platform);
    const exe = executableName(inputs.platform);
    const setting = inputs.setting?.trim();
    if (setting) {
        const file = settingPath(setting, inputs);
        if (inputs.exists(file)) {
            return { ok: true, path: file, source: "setting" };
        }
        return {
            ok: false,
            message:
                `The rulelens language server was not found at ${file}, ` +
                `the path the \`rulelens.server.path\` setting gives. ` +
                `Fix the setting, or clear it to use the bundled server or \`${exe}\` on PATH. ` +
                REMOTE_NOTE,
        };
    }
    const bundled = p.join(inputs.extensionPath, "server", exe);
    if (inputs.exists(bundled)) {
        return { ok: true, path: bundled, source: "bundled" };
    }
    for (const entry of inputs.pathEntries) {
        const file = p.join(entry, exe);
        if (inputs.exists(file)) {
            return { ok: true, path: file, source: "path" };
        }
    }
    return {
        ok: false,
        message:
            `The rulelens language server was not found. Looked in three places: ` +
            `(1) the \`rulelens.server.path\` setting, which is not set in the User, Remote or Workspace settings; ` +
            `(2) the server bundled with the extension, ${bundled}, which is not there; ` +
            `(3) \`${exe}\` on PATH, which is not there either. ` +
            `Build rulelens (cargo build --release) and set \`rulelens.server.path\` to ` +
            `target/release/${exe}, or put it on PATH. ` +
            REMOTE_NOTE,
    };
}

/** A JSON value as settings hold it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `value` without unset (`null` or `undefined`) members, recursively. */
function withoutUnset(value: unknown): Json | undefined {
    if (value === null || value === undefined) {
        return undefined;
    }
    if (Array.isArray(value)) {
        return value.map((item) => withoutUnset(item)).filter((item): item is Json => item !== undefined);
    }
    if (typeof value === "object") {
        const result: { [key: string]: Json } = {};
        for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
            const kept = withoutUnset(member);
            if (kept !== undefined) {
                result[key] = kept;
            }
        }
        return result;
    }
    if (typeof value === "boolean" || typeof value === "number" || typeof value === "string") {
        return value;
    }
    return undefined; // functions (a WorkspaceConfiguration's methods) and the like
}

/**
 * The server's `initializationOptions`: the `rulelens` settings object (what
 * `workspace.getConfiguration("rulelens")` holds) without the extension's own settings
 * and without unset values, which the server reads as "use the default".
 */
export function initializationOptions(settings: unknown): { [key: string]: Json } {
    const options = withoutUnset(settings);
    if (options === undefined || typeof options !== "object" || Array.isArray(options) || options === null) {
        return {};
    }
    for (const key of EXTENSION_ONLY) {
        delete options[key];
    }
    return options;
}

/** What `workspace.getConfiguration` returns, as far as this file needs it. */
export interface SettingsSource {
    get<T>(section: string): T | undefined;
}

/** The `rulelens.server.path` setting. */
export function serverPathSetting(config: SettingsSource): string | undefined {
    const value = config.get<unknown>("server.path");
    return typeof value === "string" ? value : undefined;
}
