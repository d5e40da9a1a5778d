// A minimal LSP client over stdio, for the server test: Content-Length framing, requests
// with ids, and answers to the server's own requests.

import { ChildProcessWithoutNullStreams, spawn } from "child_process";

export interface Message {
    id?: number | string;
    method?: string;
    params?: any;
    result?: any;
    error?: { code: number; message: string };
}

export class LspProcess {
    private readonly child: ChildProcessWithoutNullStreams;
    private buffer = Buffer.alloc(0);
    private nextId = 1;
    private readonly pending = new Map<number, (message: Message) => void>();
    readonly notifications: Message[] = [];
    readonly serverRequests: Message[] = [];
    private stderr = "";
    private exitCode: number | null = null;

    constructor(
        command: string,
        args: string[],
        private readonly answer: (request: Message) => unknown,
    ) {
        this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
        this.child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
        this.child.stderr.on("data", (chunk: Buffer) => {
            this.stderr += chunk.toString("utf8");
        });
        const fail = (why: string) => {
            for (const [, settle] of this.pending) {
                settle({ error: { code: -32099, message: why } });
            }
            this.pending.clear();
        };
        this.child.on("exit", (code) => {
            this.exitCode = code;
            fail(`the server exited (${code}): ${this.stderr.trim()}`);
        });
        this.child.on("error", (error) => fail(`the server did not run: ${error.message}`));
    }

    private receive(chunk: Buffer): void {
        this.buffer = Buffer.concat([this.buffer, chunk]);
        for (;;) {
            const headerEnd = this.buffer.indexOf("\r\n\r\n");
            if (headerEnd < 0) return;
            const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.toString("ascii", 0, headerEnd))?.[1]);
            if (this.buffer.length < headerEnd + 4 + length) return;
            const body = this.buffer.toString("utf8", headerEnd + 4, headerEnd + 4 + length);
            this.buffer = this.buffer.subarray(headerEnd + 4 + length);
            this.dispatch(JSON.parse(body));
        }
    }

    private dispatch(message: Message): void {
        if (message.method !== undefined && message.id !== undefined) {
            this.serverRequests.push(message);
            this.send({ id: message.id, result: this.answer(message) ?? null });
        } else if (message.method !== undefined) {
            this.notifications.push(message);
        } else if (typeof message.id === "number") {
            this.pending.get(message.id)?.(message);
            this.pending.delete(message.id);
        }
    }

    private send(message: Message): void {
        if (this.exitCode !== null || !this.child.stdin.writable) {
            return;
        }
        const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
        this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
        this.child.stdin.write(body);
    }

    request(method: string, params: unknown, timeoutMs = 20000): Promise<Message> {
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            if (this.exitCode !== null) {
                reject(new Error(`${method}: the server has exited (${this.exitCode}): ${this.stderr.trim()}`));
                return;
            }
            const timer = setTimeout(() => reject(new Error(`${method}: no answer in ${timeoutMs} ms`)), timeoutMs);
            this.pending.set(id, (message) => {
                clearTimeout(timer);
                resolve(message);
            });
            this.send({ id, method, params });
        });
    }

    notify(method: string, params: unknown): void {
        this.send({ method, params });
    }

    /** Ends the process without the shutdown handshake (after a failure). */
    kill(): void {
        if (this.exitCode === null) {
            this.child.kill();
        }
    }

    async stop(): Promise<number | null> {
        await this.request("shutdown", null);
        this.notify("exit", null);
        this.child.stdin.end();
        return new Promise((resolve) => {
            if (this.child.exitCode !== null) resolve(this.child.exitCode);
            else this.child.on("exit", (code) => resolve(code));
        });
    }
}
