// Where the tests find the extension's files and the server's sources. The tests run from
// out/tests/unit/ (compiled), three folders below the extension.

import * as fs from "fs";
import * as path from "path";

export const EXTENSION_ROOT = path.resolve(__dirname, "..", "..", "..");
export const REPO_ROOT = path.resolve(EXTENSION_ROOT, "..", "..");

export function extensionFile(relative: string): string {
    return path.join(EXTENSION_ROOT, relative);
}

export function repoFile(relative: string): string {
    return path.join(REPO_ROOT, relative);
}

export function readJson(file: string): any {
    return JSON.parse(fs.readFileSync(file, "utf8"));
}

export function packageJson(): any {
    return readJson(extensionFile("package.json"));
}
