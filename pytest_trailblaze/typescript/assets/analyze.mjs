// Reads a trailmap's TypeScript tools with the TypeScript compiler, without running them:
// which exports are typed tools, their input JSON Schema (from the `<I>` type argument), result
// schema, description (TSDoc) and spec (literal values), plus syntax and type errors.
//
//   node analyze.mjs <typescript.js> < request.json > answer.json
//
// The request: { typescript, sdk, files, toolTypes, toolMap, typecheck: "tools" | "all" | "none" }:
// `toolTypes` are declarations the `toolMap` members (of `TrailblazeToolMap`) refer to.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// The compiler loads while the caller is still writing the request (it builds the tool typings).
const ts = createRequire(import.meta.url)(process.argv[2]);
const request = JSON.parse(readFileSync(0, "utf8"));
const SDK_MODULE = "@trailblaze/scripting";
const MAP_FILE = path.join(request.sdk, "__trailmap_tools__.d.ts");
const SPEC_FLAGS = ["requiresContext", "requiresHost", "surfaceToLlm", "isRecordable"];

class NotLiteral extends Error {
  constructor(node) {
    super("not a literal");
    this.node = node;
  }
}

function position(node) {
  const sf = node.getSourceFile();
  const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return { file: sf.fileName, line: line + 1, col: character + 1 };
}

/** The names a file imports from `@trailblaze/scripting`: the namespace objects and `tool`. */
function sdkBindings(sf) {
  const objects = new Set();
  const tools = new Set();
  for (const statement of sf.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (statement.moduleSpecifier.text !== SDK_MODULE) continue;
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) objects.add(clause.name.text);
    const named = clause.namedBindings;
    if (named && ts.isNamespaceImport(named)) objects.add(named.name.text);
    if (named && ts.isNamedImports(named)) {
      for (const element of named.elements) {
        if (element.isTypeOnly) continue;
        const imported = (element.propertyName ?? element.name).text;
        if (imported === "trailblaze" || imported === "default") objects.add(element.name.text);
        if (imported === "tool") tools.add(element.name.text);
      }
    }
  }
  return { objects, tools };
}

function isToolCall(node, bindings) {
  if (!ts.isCallExpression(node)) return false;
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return bindings.tools.has(callee.text);
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === "tool") {
    const object = callee.expression;
    if (ts.isIdentifier(object) && bindings.objects.has(object.text)) return true;
    // `trailblaze.tool` of a namespace import: `tb.trailblaze.tool(...)`
    return ts.isPropertyAccessExpression(object) && object.name.text === "trailblaze" &&
      ts.isIdentifier(object.expression) && bindings.objects.has(object.expression.text);
  }
  return false;
}

function hasExport(statement) {
  return (ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export) !== 0 ||
    (statement.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** Exported names of a file: typed tool calls and plain functions, found syntactically. */
function scanExports(sf) {
  const bindings = sdkBindings(sf);
  const found = [];
  for (const statement of sf.statements) {
    if (ts.isVariableStatement(statement) && hasExport(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        let init = declaration.initializer;
        while (init && (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression?.(init))) init = init.expression;
        const entry = { name: declaration.name.text, ...position(declaration.name) };
        if (init && isToolCall(init, bindings)) found.push({ ...entry, call: init, statement, declaration });
        else if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) found.push({ ...entry, function: true });
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name && hasExport(statement)) {
      found.push({ name: statement.name.text, ...position(statement.name), function: true });
    }
  }
  return found;
}

function literal(node, sf, depth = 0) {
  if (depth > 20) throw new NotLiteral(node);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) {
    return -Number(node.operand.text);
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || (ts.isSatisfiesExpression && ts.isSatisfiesExpression(node))) {
    return literal(node.expression, sf, depth + 1);
  }
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => literal(e, sf, depth + 1));
  if (ts.isObjectLiteralExpression(node)) {
    const out = {};
    for (const property of node.properties) {
      if (ts.isPropertyAssignment(property)) {
        const key = property.name;
        const name = ts.isIdentifier(key) || ts.isStringLiteral(key) || ts.isNumericLiteral(key) ? key.text : undefined;
        if (name === undefined) throw new NotLiteral(key);
        out[name] = literal(property.initializer, sf, depth + 1);
      } else if (ts.isShorthandPropertyAssignment(property)) {
        out[property.name.text] = literal(property.name, sf, depth + 1);
      } else {
        throw new NotLiteral(property);
      }
    }
    return out;
  }
  if (ts.isIdentifier(node)) {
    const initializer = constInitializer(node.text, sf);
    if (initializer) return literal(initializer, sf, depth + 1);
  }
  throw new NotLiteral(node);
}

/** The initializer of a top-level `const NAME = ...` of the same file. */
function constInitializer(name, sf) {
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return declaration.initializer;
    }
  }
  return undefined;
}

/** The spec object's literal fields; a field that is not a literal is a problem at its place. */
function readSpec(call, sf) {
  const first = call.arguments[0];
  const problems = [];
  if (!first || ts.isArrowFunction(first) || ts.isFunctionExpression(first)) return { spec: {}, problems };
  let node = first;
  if (ts.isIdentifier(node)) node = constInitializer(node.text, sf) ?? node;
  if (!ts.isObjectLiteralExpression(node)) {
    problems.push({ ...position(first), message: "the spec must be an object literal (it is read without running the file)" });
    return { spec: {}, problems };
  }
  const spec = {};
  for (const property of node.properties) {
    const name = property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? property.name.text : undefined;
    try {
      if (name === undefined) throw new NotLiteral(property);
      spec[name] = ts.isShorthandPropertyAssignment(property)
        ? literal(property.name, sf)
        : literal(property.initializer ?? property, sf);
    } catch (error) {
      if (!(error instanceof NotLiteral)) throw error;
      problems.push({
        ...position(error.node),
        message: `spec${name ? "." + name : ""} must be a literal value: the plugin reads it without running the file`,
      });
    }
  }
  return { spec, problems };
}

function docOf(symbol, checker) {
  if (!symbol) return "";
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

function defaultOf(symbol) {
  for (const tag of symbol?.getJsDocTags?.() ?? []) {
    if (tag.name !== "default") continue;
    const text = ts.displayPartsToString(tag.text ?? []).trim();
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { value: text.replace(/^["'`](.*)["'`]$/s, "$1") };
    }
  }
  return undefined;
}

/** A JSON Schema for a TypeScript type. */
function schemaOf(type, checker, at, seen = new Set(), depth = 0) {
  const F = ts.TypeFlags;
  if (depth > 16) return {};
  if (type.flags & (F.Any | F.Unknown)) return {};
  if (type.flags & F.Never) return { not: {} };
  if (type.isUnion()) return unionSchema(type, checker, at, seen, depth);
  if (type.flags & F.StringLiteral) return { type: "string", enum: [type.value] };
  if (type.flags & F.NumberLiteral) return { type: "number", enum: [type.value] };
  if (type.flags & F.BooleanLiteral) return { type: "boolean", enum: [type.intrinsicName === "true"] };
  if (type.flags & (F.String | F.TemplateLiteral)) return { type: "string" };
  if (type.flags & F.Number) return { type: "number" };
  if (type.flags & F.Boolean) return { type: "boolean" };
  if (type.flags & F.Null) return { type: "null" };
  if (type.flags & F.BigInt) return { type: "integer" };
  if (checker.isArrayType(type)) {
    const [item] = checker.getTypeArguments(type);
    return { type: "array", items: item ? schemaOf(item, checker, at, seen, depth + 1) : {} };
  }
  if (checker.isTupleType(type)) {
    const items = checker.getTypeArguments(type).map((t) => schemaOf(t, checker, at, seen, depth + 1));
    return { type: "array", prefixItems: items, minItems: items.length, maxItems: items.length };
  }
  if (type.flags & (F.Object | F.Intersection)) return objectSchema(type, checker, at, seen, depth);
  return {};
}

function unionSchema(type, checker, at, seen, depth) {
  const F = ts.TypeFlags;
  const parts = type.types.filter((t) => !(t.flags & (F.Undefined | F.Void)));
  const bools = parts.filter((t) => t.flags & F.BooleanLiteral);
  const rest = parts.filter((t) => !(t.flags & F.BooleanLiteral));
  const options = [];
  if (bools.length === 2) options.push({ type: "boolean" });
  else options.push(...bools.map((t) => schemaOf(t, checker, at, seen, depth + 1)));
  const strings = rest.filter((t) => t.flags & F.StringLiteral);
  const numbers = rest.filter((t) => t.flags & F.NumberLiteral);
  if (strings.length) options.push({ type: "string", enum: strings.map((t) => t.value) });
  if (numbers.length) options.push({ type: "number", enum: numbers.map((t) => t.value) });
  for (const t of rest) {
    if (!(t.flags & (F.StringLiteral | F.NumberLiteral))) options.push(schemaOf(t, checker, at, seen, depth + 1));
  }
  if (options.length === 1) return options[0];
  return { anyOf: options };
}

function objectSchema(type, checker, at, seen, depth) {
  if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length && !checker.getPropertiesOfType(type).length) return {};
  if (seen.has(type)) return { type: "object" };
  seen = new Set(seen).add(type);
  const properties = {};
  const required = [];
  for (const symbol of checker.getPropertiesOfType(type)) {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    const propType = checker.getTypeOfSymbolAtLocation(symbol, declaration ?? at);
    if (checker.getSignaturesOfType(propType, ts.SignatureKind.Call).length && !(propType.flags & ts.TypeFlags.Union)) continue;
    const schema = { ...schemaOf(propType, checker, at, seen, depth + 1) };
    const description = docOf(symbol, checker);
    if (description) schema.description = description;
    const fallback = defaultOf(symbol);
    if (fallback) schema.default = fallback.value;
    properties[symbol.name] = schema;
    if (!(symbol.flags & ts.SymbolFlags.Optional)) required.push(symbol.name);
  }
  const schema = { type: "object", properties };
  if (required.length) schema.required = required;
  const index = checker.getIndexTypeOfType(type, ts.IndexKind.String);
  if (index) {
    schema.additionalProperties = index.flags & ts.TypeFlags.Never ? false : schemaOf(index, checker, at, seen, depth + 1);
  } else {
    schema.additionalProperties = false;
  }
  return schema;
}

/** The input (and result) type of a typed tool: its type arguments, else the handler's annotation. */
function toolTypes(call, checker) {
  const [inputNode, resultNode] = call.typeArguments ?? [];
  const handler = call.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
  let input;
  if (inputNode) input = checker.getTypeFromTypeNode(inputNode);
  else if (handler?.parameters[0]?.type) input = checker.getTypeFromTypeNode(handler.parameters[0].type);
  const result = resultNode ? checker.getTypeFromTypeNode(resultNode) : undefined;
  return { input, result, at: inputNode ?? call };
}

function describeTool(found, sf, checker) {
  const { spec, problems } = readSpec(found.call, sf);
  const symbol = checker.getSymbolAtLocation(found.declaration.name);
  const { input, result, at } = toolTypes(found.call, checker);
  const entry = {
    name: found.name,
    line: found.line,
    col: found.col,
    spec,
    specProblems: problems,
    description: docOf(symbol, checker),
    inputSchema: input ? schemaOf(input, checker, at) : { type: "object", properties: {}, additionalProperties: false },
  };
  if (result && !(result.flags & ts.TypeFlags.String)) entry.resultSchema = schemaOf(result, checker, at);
  return entry;
}

function relativeImport(from, file) {
  let rel = path.relative(path.dirname(from), file).replace(/\\/g, "/").replace(/\.(ts|mts|tsx)$/, "");
  if (!rel.startsWith(".")) rel = "./" + rel;
  return rel;
}

/** `TrailblazeToolMap` entries of the trailmap's own typed tools, typed from their definitions. */
function siblingEntries(scanned) {
  const lines = [];
  for (const [file, exports] of scanned) {
    for (const found of exports) {
      if (!found.call) continue;
      const ref = `typeof import(${JSON.stringify(relativeImport(MAP_FILE, file))})[${JSON.stringify(found.name)}]`;
      lines.push(`    ${found.name}: { args: Parameters<${ref}>[0]; result: Awaited<ReturnType<${ref}>> };`);
    }
  }
  return lines.join("\n");
}

function diagnosticsOf(program, files) {
  const out = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    const found = [...program.getSyntacticDiagnostics(sf)];
    if (found.length === 0 && request.typecheck !== "none") found.push(...program.getSemanticDiagnostics(sf));
    for (const d of found) {
      if (d.category !== ts.DiagnosticCategory.Error) continue;
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      out.push({
        file: d.file?.fileName ?? file,
        line: where.line + 1,
        col: where.character + 1,
        code: d.code,
        message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
      });
    }
  }
  return out;
}

/** Files and the files of their folder they import, transitively (helpers like `*_shared.ts`). */
function withLocalImports(files, options, host) {
  const found = new Set(files);
  const pending = [...files];
  while (pending.length) {
    const file = pending.pop();
    const info = ts.preProcessFile(host.readFile(file) ?? "", true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const resolved = ts.resolveModuleName(ref.fileName, file, options, host).resolvedModule?.resolvedFileName;
      if (!resolved || resolved.endsWith(".d.ts") || found.has(resolved)) continue;
      if (!resolved.startsWith(process.cwd() + path.sep)) continue; // the tools folder (the cwd)
      found.add(resolved);
      pending.push(resolved);
    }
  }
  return [...found];
}

function main() {
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowJs: true,
    checkJs: false,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    paths: {
      [SDK_MODULE]: [path.join(request.sdk, "index.d.ts")],
      [`${SDK_MODULE}/testing`]: [path.join(request.sdk, "testing.d.ts")],
    },
  };
  const scanned = new Map();
  for (const file of request.files) {
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    scanned.set(file, scanExports(sf));
  }
  const extra = { ...(request.extraFiles ?? {}) };
  extra[MAP_FILE] = `import "${SDK_MODULE}";\n${request.toolTypes ?? ""}\ndeclare module "${SDK_MODULE}" {\n  interface TrailblazeToolMap {\n${request.toolMap ?? ""}\n${siblingEntries(scanned)}\n  }\n}\n`;
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, fresh) =>
    fileName in extra ? ts.createSourceFile(fileName, extra[fileName], languageVersion, true) : getSourceFile(fileName, languageVersion, onError, fresh);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName in extra || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (fileName in extra ? extra[fileName] : readFile(fileName));
  // Node's and Bun's built-ins (`node:fs`, `process`), loosely typed: tools run in Bun or Node.
  const builtins = path.join(request.sdk, "node-builtins.d.ts");
  const roots = [...request.files, ...(request.checkOnly ?? []), ...Object.keys(extra), builtins];
  const program = ts.createProgram({ rootNames: roots, options, host });
  const checker = program.getTypeChecker();
  const files = {};
  for (const file of scanned.keys()) {
    const sf = program.getSourceFile(file);
    const exports = sf ? scanExports(sf) : [];
    files[file] = {
      exports: exports.map((found) =>
        found.call ? { tool: describeTool(found, sf, checker), name: found.name, line: found.line, col: found.col } : { name: found.name, line: found.line, col: found.col, function: true },
      ),
    };
  }
  const toolFiles = [...scanned].filter(([, exports]) => exports.some((e) => e.call)).map(([file]) => file);
  const checked = request.typecheck === "all" ? [...request.files, ...(request.checkOnly ?? [])] : withLocalImports(toolFiles, options, host);
  const answer = { typescriptVersion: ts.version, files, diagnostics: diagnosticsOf(program, checked) };
  process.stdout.write(JSON.stringify(answer));
}

main();
