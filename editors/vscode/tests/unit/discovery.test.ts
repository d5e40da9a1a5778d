import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DiscoveryInputs, findServer, splitPathVariable } from "../../src/config";

function inputs(files: string[], overrides: Partial<DiscoveryInputs> = {}): DiscoveryInputs {
    const present = new Set(files);
    return {
        setting: undefined,
        extensionPath: "/ext",
        pathEntries: ["/usr/local/bin", "/usr/bin"],
        platform: "linux",
        exists: (file) => present.has(file),
        homeDir: "/home/me",
        workspaceFolder: "/ws",
        ...overrides,
    };
}

describe("server discovery", () => {
    it("uses the setting first", () => {
        const found = findServer(inputs(["/opt/rulelens", "/ext/server/rulelens", "/usr/bin/rulelens"], { setting: "/opt/rulelens" }));
        assert.deepEqual(found, { ok: true, path: "/opt/rulelens", source: "setting" });
    });

    it("resolves a relative setting against the workspace folder and ~ against home", () => {
        assert.deepEqual(
            findServer(inputs(["/ws/target/debug/rulelens"], { setting: "target/debug/rulelens" })),
            { ok: true, path: "/ws/target/debug/rulelens", source: "setting" },
        );
        assert.deepEqual(
            findServer(inputs(["/home/me/.cargo/bin/rulelens"], { setting: "~/.cargo/bin/rulelens" })),
            { ok: true, path: "/home/me/.cargo/bin/rulelens", source: "setting" },
        );
    });

    it("does not fall back when the setting points at nothing", () => {
        const found = findServer(inputs(["/ext/server/rulelens", "/usr/bin/rulelens"], { setting: "/nowhere/rulelens" }));
        assert.equal(found.ok, false);
        assert.ok(!found.ok && found.message.includes("/nowhere/rulelens"));
        assert.ok(!found.ok && found.message.includes("rulelens.server.path"));
        assert.ok(!found.ok && found.message.includes("Remote settings"));
    });

    it("treats a blank or null setting as unset", () => {
        for (const setting of ["", "  ", null, undefined]) {
            assert.deepEqual(findServer(inputs(["/ext/server/rulelens"], { setting })), {
                ok: true,
                path: "/ext/server/rulelens",
                source: "bundled",
            });
        }
    });

    it("prefers the bundled server to PATH", () => {
        const found = findServer(inputs(["/ext/server/rulelens", "/usr/bin/rulelens"]));
        assert.deepEqual(found, { ok: true, path: "/ext/server/rulelens", source: "bundled" });
    });

    it("searches PATH in order", () => {
        assert.deepEqual(findServer(inputs(["/usr/bin/rulelens"])), { ok: true, path: "/usr/bin/rulelens", source: "path" });
        assert.deepEqual(findServer(inputs(["/usr/local/bin/rulelens", "/usr/bin/rulelens"])), {
            ok: true,
            path: "/usr/local/bin/rulelens",
            source: "path",
        });
    });

    it("looks for rulelens.exe on Windows", () => {
        const windows = { platform: "win32" as const, extensionPath: "C:\\ext", pathEntries: ["C:\\bin"], workspaceFolder: "C:\\ws" };
        assert.deepEqual(findServer(inputs(["C:\\ext\\server\\rulelens.exe"], windows)), {
            ok: true,
            path: "C:\\ext\\server\\rulelens.exe",
            source: "bundled",
        });
        assert.deepEqual(findServer(inputs(["C:\\bin\\rulelens.exe"], windows)), { ok: true, path: "C:\\bin\\rulelens.exe", source: "path" });
        assert.equal(findServer(inputs(["C:\\bin\\rulelens"], windows)).ok, false);
        assert.deepEqual(findServer(inputs(["C:\\ws\\target\\release\\rulelens.exe"], { ...windows, setting: "target\\release\\rulelens.exe" })), {
            ok: true,
            path: "C:\\ws\\target\\release\\rulelens.exe",
            source: "setting",
        });
    });

    it("names the three places when the server is nowhere", () => {
        const found = findServer(inputs([]));
        assert.equal(found.ok, false);
        const message = found.ok ? "" : found.message;
        assert.match(message, /rulelens\.server\.path/);
        assert.match(message, /\/ext\/server\/rulelens/);
        assert.match(message, /on PATH/);
        // In a remote window the User settings may not be the ones that apply.
        assert.match(message, /not set in the User, Remote or Workspace settings/);
        assert.match(message, /Remote settings \(Preferences: Open Remote Settings\)/);
    });

    it("splits PATH by the platform's separator", () => {
        assert.deepEqual(splitPathVariable("/a:/b::/c", "linux"), ["/a", "/b", "/c"]);
        assert.deepEqual(splitPathVariable("C:\\a;C:\\b;", "win32"), ["C:\\a", "C:\\b"]);
        assert.deepEqual(splitPathVariable(undefined, "darwin"), []);
    });
});
