// TEMPORARY: the trace contract of /work/CONTRACT.md, until the generated www/pkg/todo_trace.d.ts has it.
export type Lang = "zh" | "en";
export type FigureId = "validate" | "write" | "prepare" | "loop";
export interface Figure { id: FigureId; symbol: string; file: string; entry: string; edits: "items" | "plan"; host: string[] }
export interface Scenario { id: string; label: string; hint: string; isDefault: boolean }
export interface SourceLine { no: number; text: string; step: boolean }
export interface Listing { symbol: string; file: string; lines: SourceLine[] }
export interface ErrorInfo { code: string; message: string; line?: number; column?: number }
export interface Binding { name: string; type: string }
export interface Frame { symbol: string; line: number }
export interface HostField { field: string; entries: number[]; changes: string }
export type HostView = HostField[];
export interface Data { state: { items: unknown[] }; items: unknown; messages: unknown[] }
export interface Step {
    event: "call" | "line" | "return" | "error" | "truncated";
    frames: Frame[]; scope: number; values: (number | null)[]; changes: string; host: number;
    ran?: number; outputLines?: number; value?: number; error?: ErrorInfo;
}
export type Outcome = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };
export interface Trace {
    figure: FigureId; scenario: string; ran: boolean; data: Data; values: unknown[]; bindings: Binding[];
    scopes: number[][]; hosts: HostView[]; steps: Step[]; output: string[]; result: Outcome;
}
export function figures(): Figure[];
export function scenarios(figureId: FigureId, lang: Lang): Scenario[];
export function source(symbol: string): Listing;
export function trace(figureId: FigureId, scenarioId: string, lang: Lang): Trace;
export function traceInput(figureId: FigureId, text: string, lang: Lang): Trace;
