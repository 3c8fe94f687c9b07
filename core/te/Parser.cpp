// Recursive-descent parser for the TE script subset (DESIGN.md §1). Each parseX() carries its
// grammar rule; constructs outside the subset are parsed far enough to be refused by name.
#include "te/Ast.h"
#include "te/Lexer.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

namespace loopscope::ast {

namespace {

std::string locText(SourceLoc loc)
{
    return std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

std::string quoted(std::string_view text)
{
    return "'" + std::string(text) + "'";
}

// A statement keyword outside the subset, and what to tell the user instead.
std::optional<std::string> refusedStatement(std::string_view keyword)
{
    if (keyword == "while")
        return std::string("'while' statements are not supported in a TE script; express loops "
                           "with te.compute and schedule primitives, or 'for' in TVMScript");
    if (keyword == "elif" || keyword == "else")
        return quoted(keyword) + " without an 'if' before it at the same indentation";
    if (keyword == "try" || keyword == "except" || keyword == "finally")
        return quoted(keyword) + " statements are not supported in a TE script";
    for (std::string_view simple :
         {"del", "global", "nonlocal", "raise", "break", "continue", "yield", "async", "await"}) {
        if (keyword == simple)
            return quoted(keyword) + " statements are not supported in a TE script";
    }
    return std::nullopt;
}

// Binding strength of the binary operators handled by precedence climbing; 0 for anything else.
int binaryPrecedence(const Token& token)
{
    if (token.kind != TokenKind::Op) return 0;
    const std::string& op = token.text;
    if (op == "|") return 1;
    if (op == "^") return 2;
    if (op == "&") return 3;
    if (op == "<<" || op == ">>") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "//" || op == "%" || op == "@") return 6;
    return 0;
}

bool isAugmentedAssign(const Token& token)
{
    static const std::vector<std::string> ops = {
        "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};
    return token.kind == TokenKind::Op &&
           std::find(ops.begin(), ops.end(), token.text) != ops.end();
}

// What kind of thing an invalid assignment target is, for "cannot assign to ...".
std::string targetDescription(const Expr& e)
{
    switch (e.kind) {
    case ExprKind::Call: return "a function call";
    case ExprKind::Subscript: return "a subscript";
    case ExprKind::Attribute: return "an attribute";
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::String:
    case ExprKind::Bool:
    case ExprKind::None: return "a literal";
    case ExprKind::Lambda: return "a lambda";
    case ExprKind::IfExp: return "a conditional expression";
    default: return "an expression";
    }
}

class Parser {
public:
    explicit Parser(std::string_view source) : m_source(source), m_lexer(source) { advance(); }

    Module parseModule();

private:
    // Token handling.
    void advance();
    const Token& peek();
    bool isOp(std::string_view op) const { return m_tok.isOp(op); }
    bool isKeyword(std::string_view kw) const { return m_tok.isKeyword(kw); }
    bool canStartExpression() const;
    [[noreturn]] void parseError(const std::string& expected,
                                 const std::string& context = {}) const;
    void expectClose(std::string_view closer, const Token& open);
    std::string describe(const Token& token) const;
    std::string sourceText(std::size_t from) const;

    // Statements.
    void parseLine(std::vector<Stmt>& out, int depth);
    void parseSuite(Stmt& header, int depth);
    Stmt parseCompound(int depth);
    Stmt parseIf(int depth);
    void parseParams(Stmt& def);
    ExprPtr parseTargetList();
    Stmt parseStatement();
    void parseImport();
    void parseDottedName(const char* context);
    void parseAssignmentOrExpression(Stmt& stmt);
    void checkTarget(const Expr& target) const;

    // Expressions, loosest binding first.
    ExprPtr parseTestList();
    ExprPtr parseStarOrTest();
    ExprPtr parseTest();
    ExprPtr parseLambda();
    ExprPtr parseOrTest();
    ExprPtr parseAndTest();
    ExprPtr parseNotTest();
    ExprPtr parseComparison();
    bool atComparisonOperator();
    ExprPtr parseBinary(int minPrecedence);
    ExprPtr parseFactor();
    ExprPtr parsePower();
    ExprPtr parsePrimary();
    ExprPtr parseCall(SourceLoc start, ExprPtr callee);
    ExprPtr parseSubscript(SourceLoc start, ExprPtr value);
    ExprPtr parseAtom();
    ExprPtr parseParenthesized();
    ExprPtr parseList();
    ExprPtr parseDict();
    void refuseComprehension(const char* what) const;

    std::string_view m_source;
    Lexer m_lexer;
    // Brackets, calls and signs open inside one another: the parser recurses once per level.
    static constexpr int kMaxNesting = 200;
    int m_nesting = 0;
    struct Nested {
        Parser& parser;
        Nested(Parser& p) : parser(p)
        {
            if (++parser.m_nesting > kMaxNesting) {
                --parser.m_nesting;
                throw UserError(parser.m_tok.loc, "expression nested deeper than " +
                                                      std::to_string(kMaxNesting) +
                                                      " levels of brackets, calls or signs");
            }
        }
        ~Nested() { --parser.m_nesting; }
    };

    Token m_tok;  // current token
    Token m_prev; // last consumed token
    std::optional<Token> m_peeked;
};

std::shared_ptr<Expr> makeExpr(ExprKind kind, SourceLoc loc)
{
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->loc = loc;
    return e;
}

// Records how deep an expression is from its direct parts, refusing one deeper than the limit.
template <typename T> std::shared_ptr<T> seal(std::shared_ptr<T> e)
{
    int depth = 0;
    auto part = [&](const ExprPtr& p) {
        if (p) depth = std::max(depth, p->depth);
    };
    part(e->lhs);
    part(e->rhs);
    part(e->value);
    for (auto& item : e->items)
        part(item);
    for (auto& k : e->keywords)
        part(k.value);
    e->depth = depth + 1;
    if (e->depth > kMaxExpressionDepth) {
        throw UserError(e->loc, "expression nested deeper than " +
                                    std::to_string(kMaxExpressionDepth) +
                                    " levels; split it into several statements");
    }
    return e;
}

std::shared_ptr<Expr> makeOperation(ExprKind kind, SourceLoc start, const Token& op, ExprPtr lhs,
                                    ExprPtr rhs)
{
    auto e = makeExpr(kind, start);
    e->opLoc = op.loc;
    e->name = op.text;
    e->lhs = std::move(lhs);
    e->rhs = std::move(rhs);
    return seal(e);
}

void Parser::advance()
{
    m_prev = std::move(m_tok);
    if (m_peeked) {
        m_tok = std::move(*m_peeked);
        m_peeked.reset();
    } else {
        m_tok = m_lexer.next();
    }
}

const Token& Parser::peek()
{
    if (!m_peeked) m_peeked = m_lexer.next();
    return *m_peeked;
}

bool Parser::canStartExpression() const
{
    switch (m_tok.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String: return true;
    case TokenKind::Keyword:
        return isKeyword("lambda") || isKeyword("not") || isKeyword("True") || isKeyword("False") ||
               isKeyword("None") || isKeyword("await") || isKeyword("yield");
    case TokenKind::Op:
        return isOp("(") || isOp("[") || isOp("{") || isOp("-") || isOp("+") || isOp("~") ||
               isOp("*") || isOp("**") || isOp("...");
    default: return false;
    }
}

std::string Parser::describe(const Token& token) const
{
    switch (token.kind) {
    case TokenKind::Newline: return "end of line";
    case TokenKind::End: return "end of file";
    case TokenKind::Indent: return "an indented line";
    case TokenKind::Dedent: return "the end of the block";
    case TokenKind::String: {
        std::string_view spelling = m_source.substr(token.offset, token.endOffset - token.offset);
        std::size_t cut = std::min(spelling.find_first_of("\r\n"), std::size_t{24});
        if (cut < spelling.size()) return std::string(spelling.substr(0, cut)) + "...";
        return std::string(spelling);
    }
    default: return quoted(token.text);
    }
}

void Parser::parseError(const std::string& expected, const std::string& context) const
{
    std::string message = "expected " + expected;
    if (!context.empty()) message += " " + context;
    throw UserError(m_tok.loc, message + ", found " + describe(m_tok));
}

void Parser::expectClose(std::string_view closer, const Token& open)
{
    if (!isOp(closer))
        parseError(quoted(closer), "to close " + quoted(open.text) + " at " + locText(open.loc));
    advance();
}

std::string Parser::sourceText(std::size_t from) const
{
    return std::string(m_source.substr(from, m_prev.endOffset - from));
}

// module: line* END
Module Parser::parseModule()
{
    Module module;
    while (m_tok.kind != TokenKind::End) {
        if (m_tok.kind == TokenKind::Newline) {
            advance();
            continue;
        }
        parseLine(module.body, 0);
    }
    module.comments = m_lexer.comments();
    return module;
}

bool startsCompound(const Token& t)
{
    return t.isOp("@") || t.isKeyword("def") || t.isKeyword("class") || t.isKeyword("for") ||
           t.isKeyword("with") || t.isKeyword("if");
}

// line: compound_statement | statement (';' statement)* [';'] NEWLINE
void Parser::parseLine(std::vector<Stmt>& out, int depth)
{
    if (startsCompound(m_tok)) {
        out.push_back(parseCompound(depth));
        return;
    }
    for (;;) {
        out.push_back(parseStatement());
        if (!isOp(";")) break;
        advance();
        if (m_tok.kind == TokenKind::Newline || m_tok.kind == TokenKind::End) break;
    }
    if (m_tok.kind == TokenKind::Newline)
        advance();
    else if (m_tok.kind != TokenKind::End)
        parseError("end of line");
}

// suite: NEWLINE INDENT line+ DEDENT | statement (';' statement)* NEWLINE
void Parser::parseSuite(Stmt& header, int depth)
{
    if (!isOp(":")) parseError("':'", "to begin the block of the '" + header.text + "' line");
    advance();
    if (depth >= kMaxBlockDepth)
        throw UserError(header.loc,
                        "blocks nested deeper than " + std::to_string(kMaxBlockDepth) + " levels");
    if (m_tok.kind != TokenKind::Newline) {
        if (startsCompound(m_tok))
            throw UserError(m_tok.loc, "a block statement must start on a line of its own");
        parseLine(header.body, depth + 1);
        header.endLine = m_prev.end.line;
        return;
    }
    advance();
    if (m_tok.kind != TokenKind::Indent)
        throw UserError(m_tok.loc, "expected an indented block after the line " +
                                       std::to_string(header.loc.line));
    advance();
    while (m_tok.kind != TokenKind::Dedent && m_tok.kind != TokenKind::End) {
        if (m_tok.kind == TokenKind::Newline) {
            advance();
            continue;
        }
        parseLine(header.body, depth + 1);
    }
    header.endLine = header.body.back().endLine;
    if (m_tok.kind == TokenKind::Dedent) advance();
}

// compound_statement: decorator* (funcdef | classdef) | for_stmt | with_stmt
// decorator: '@' test NEWLINE
// funcdef: 'def' NAME '(' [params] ')' ['->' test] ':' suite
// classdef: 'class' NAME ['(' [arguments] ')'] ':' suite
// for_stmt: 'for' targetlist 'in' testlist ':' suite
// with_stmt: 'with' test ['as' target] ':' suite
Stmt Parser::parseCompound(int depth)
{
    if (isKeyword("if")) return parseIf(depth);
    Token first = m_tok;
    Stmt stmt;
    stmt.loc = first.loc;
    while (isOp("@")) {
        advance();
        stmt.decorators.push_back(parseTest());
        if (m_tok.kind != TokenKind::Newline) parseError("end of line", "after the decorator");
        advance();
        if (!isKeyword("def") && !isKeyword("class") && !isOp("@"))
            parseError("'def' or 'class'", "after a decorator");
    }
    const std::size_t headerStart = m_tok.offset;
    if (isKeyword("def") || isKeyword("class")) {
        const bool isDef = isKeyword("def");
        stmt.kind = isDef ? StmtKind::Def : StmtKind::Class;
        advance();
        if (m_tok.kind != TokenKind::Name)
            parseError("a name", isDef ? "after 'def'" : "after 'class'");
        stmt.name = m_tok.text;
        stmt.nameLoc = m_tok.loc;
        advance();
        if (isDef) {
            parseParams(stmt);
            if (isOp("->")) {
                advance();
                stmt.value = parseTest();
            }
        } else if (isOp("(")) {
            Token open = m_tok;
            advance();
            while (canStartExpression()) {
                stmt.bases.push_back(parseTest());
                if (!isOp(",")) break;
                advance();
            }
            expectClose(")", open);
        }
    } else if (isKeyword("for")) {
        stmt.kind = StmtKind::For;
        advance();
        stmt.targets.push_back(parseTargetList());
        checkTarget(*stmt.targets.back());
        if (!isKeyword("in")) parseError("'in'", "in the 'for' statement");
        advance();
        stmt.value = parseTestList();
    } else {
        stmt.kind = StmtKind::With;
        advance();
        stmt.value = parseTest();
        if (isKeyword("as")) {
            advance();
            stmt.targets.push_back(parseTargetList());
            checkTarget(*stmt.targets.back());
        }
        if (isOp(","))
            throw UserError(m_tok.loc, "one context manager per 'with' statement: nest them");
    }
    stmt.text = std::string(m_source.substr(headerStart, m_prev.endOffset - headerStart));
    parseSuite(stmt, depth);
    return stmt;
}

// if_stmt: 'if' test ':' suite ('elif' test ':' suite)* ['else' ':' suite]
// An elif is read as an else branch holding one if statement, as Python's own tree has it.
Stmt Parser::parseIf(int depth)
{
    Stmt stmt;
    stmt.kind = StmtKind::If;
    stmt.loc = m_tok.loc;
    const std::size_t headerStart = m_tok.offset;
    advance();
    stmt.value = parseTest();
    stmt.text = sourceText(headerStart);
    parseSuite(stmt, depth);
    if (isKeyword("elif")) {
        Stmt nested = parseIf(depth);
        stmt.endLine = nested.endLine;
        stmt.orelse.push_back(std::move(nested));
    } else if (isKeyword("else")) {
        Stmt branch;
        branch.loc = m_tok.loc;
        const std::size_t elseStart = m_tok.offset;
        advance();
        branch.text = sourceText(elseStart);
        parseSuite(branch, depth);
        stmt.orelse = std::move(branch.body);
        stmt.endLine = branch.endLine;
    }
    return stmt;
}

// params: param (',' param)* [',']
// param: NAME [':' test] ['=' test]     -- '*', '**' and '/' are refused
void Parser::parseParams(Stmt& def)
{
    if (!isOp("(")) parseError("'('", "after the function's name");
    Token open = m_tok;
    advance();
    while (!isOp(")")) {
        if (isOp("*") || isOp("**") || isOp("/"))
            throw UserError(m_tok.loc, "parameters like '*args', '**kwargs' and '/' are not "
                                       "supported in a TE script");
        if (m_tok.kind != TokenKind::Name) parseError("a parameter name");
        Param p;
        p.name = m_tok.text;
        p.loc = m_tok.loc;
        for (const Param& q : def.params)
            if (q.name == p.name)
                throw UserError(p.loc, "the parameter " + quoted(p.name) + " is repeated");
        advance();
        if (isOp(":")) {
            advance();
            p.annotation = parseTest();
        }
        if (isOp("=")) {
            advance();
            p.defaultValue = parseTest();
        }
        def.params.push_back(std::move(p));
        if (!isOp(",")) break;
        advance();
    }
    expectClose(")", open);
}

// targetlist: target (',' target)* [',']    target: ['*'] primary
ExprPtr Parser::parseTargetList()
{
    SourceLoc start = m_tok.loc;
    auto item = [this]() -> ExprPtr {
        if (!isOp("*")) return parsePrimary();
        auto star = makeExpr(ExprKind::Starred, m_tok.loc);
        advance();
        star->value = parsePrimary();
        return seal(star);
    };
    ExprPtr first = item();
    if (!isOp(",")) return first;
    auto tuple = makeExpr(ExprKind::Tuple, start);
    tuple->items.push_back(first);
    while (isOp(",")) {
        advance();
        if (isKeyword("in") || isOp("=")) break;
        tuple->items.push_back(item());
    }
    return seal(tuple);
}

// statement: import_stmt | 'pass' | 'return' [testlist] | 'assert' test [',' test]
//          | assignment | expression
Stmt Parser::parseStatement()
{
    Token first = m_tok;
    Stmt stmt;
    stmt.loc = first.loc;
    if (isKeyword("import") || isKeyword("from")) {
        stmt.kind = StmtKind::Import;
        parseImport();
    } else if (isKeyword("pass")) {
        stmt.kind = StmtKind::Pass;
        advance();
    } else if (isKeyword("return")) {
        stmt.kind = StmtKind::Return;
        advance();
        if (canStartExpression()) stmt.value = parseTestList();
    } else if (isKeyword("assert")) {
        stmt.kind = StmtKind::Assert;
        advance();
        stmt.value = parseTest();
        if (isOp(",")) {
            advance();
            stmt.targets.push_back(parseTest());
        }
    } else if (auto refusal =
                   first.kind == TokenKind::Keyword ? refusedStatement(first.text) : std::nullopt) {
        throw UserError(first.loc, *refusal);
    } else {
        parseAssignmentOrExpression(stmt);
    }
    stmt.endLine = m_prev.end.line;
    stmt.text = sourceText(first.offset);
    return stmt;
}

// import_stmt: 'import' dotted_name ['as' NAME] (',' dotted_name ['as' NAME])*
//            | 'from' ('.' | '...')* [dotted_name] 'import'
//                  ('*' | '(' import_names [','] ')' | import_names)
// import_names: NAME ['as' NAME] (',' NAME ['as' NAME])*
void Parser::parseImport()
{
    auto parseAlias = [this] {
        if (!isKeyword("as")) return;
        advance();
        if (m_tok.kind != TokenKind::Name) parseError("a name", "after 'as'");
        advance();
    };

    if (isKeyword("import")) {
        advance();
        for (;;) {
            parseDottedName("after 'import'");
            parseAlias();
            if (!isOp(",")) return;
            advance();
        }
    }

    advance(); // 'from'
    bool relative = false;
    while (isOp(".") || isOp("...")) {
        relative = true;
        advance();
    }
    if (!relative || m_tok.kind == TokenKind::Name) parseDottedName("after 'from'");
    if (!isKeyword("import")) parseError("'import'", "in the 'from ... import' statement");
    advance();
    if (isOp("*")) {
        advance();
        return;
    }
    std::optional<Token> open;
    if (isOp("(")) {
        open = m_tok;
        advance();
    }
    for (;;) {
        if (m_tok.kind != TokenKind::Name) parseError("a name to import");
        advance();
        parseAlias();
        if (!isOp(",")) break;
        advance();
        if (open && isOp(")")) break;
    }
    if (open) expectClose(")", *open);
}

// dotted_name: NAME ('.' NAME)*
void Parser::parseDottedName(const char* context)
{
    if (m_tok.kind != TokenKind::Name) parseError("a module name", context);
    advance();
    while (isOp(".")) {
        advance();
        if (m_tok.kind != TokenKind::Name) parseError("a name", "after '.'");
        advance();
    }
}

// assignment: (target_list '=')+ testlist
// expression_stmt: testlist
// target_list: a testlist made of names, and tuples or lists of names
void Parser::parseAssignmentOrExpression(Stmt& stmt)
{
    std::size_t targetStart = m_tok.offset;
    ExprPtr first = parseTestList();
    if (isAugmentedAssign(m_tok)) {
        std::string target = sourceText(targetStart);
        std::string op = m_tok.text.substr(0, m_tok.text.size() - 1);
        throw UserError(m_tok.loc, "augmented assignment " + quoted(m_tok.text) +
                                       " is not supported; write '" + target + " = " + target +
                                       " " + op + " ...'");
    }
    if (isOp(":"))
        throw UserError(m_tok.loc, "annotated assignments ('x: int = ...') are not supported in "
                                   "a TE script; drop the annotation");
    if (!isOp("=")) {
        stmt.kind = StmtKind::Expr;
        stmt.value = first;
        return;
    }

    stmt.kind = StmtKind::Assign;
    ExprPtr last = first;
    while (isOp("=")) {
        checkTarget(*last);
        stmt.targets.push_back(last);
        advance();
        last = parseTestList();
    }
    stmt.value = last;
}

void Parser::checkTarget(const Expr& target) const
{
    // A subscript (`Y[vi, vj] = ...`) is TVMScript's store; a TE script refuses it when it runs.
    if (target.kind == ExprKind::Name || target.kind == ExprKind::Subscript) return;
    if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
        const Expr* starred = nullptr;
        for (const ExprPtr& item : target.items) {
            if (item->kind == ExprKind::Starred) {
                if (starred)
                    throw UserError(item->loc, "only one starred name ('*rest') per assignment");
                starred = item.get();
                checkTarget(*item->value);
                continue;
            }
            checkTarget(*item);
        }
        return;
    }
    if (target.kind == ExprKind::Starred)
        throw UserError(target.loc, "a starred assignment target must be in a tuple or list: "
                                    "write '" +
                                        std::string("*name,") + "'");
    throw UserError(target.loc, "cannot assign to " + targetDescription(target) +
                                    "; only names (or tuples and lists of names) can be "
                                    "assigned in a TE script");
}

// testlist: star_or_test (',' star_or_test)* [',']    -- a bare Tuple when there is a comma
ExprPtr Parser::parseTestList()
{
    SourceLoc start = m_tok.loc;
    ExprPtr first = parseStarOrTest();
    if (!isOp(",")) return first;
    auto tuple = makeExpr(ExprKind::Tuple, start);
    tuple->items.push_back(first);
    while (isOp(",")) {
        advance();
        if (!canStartExpression()) break;
        tuple->items.push_back(parseStarOrTest());
    }
    return seal(tuple);
}

// star_or_test: '*' or_test | test
ExprPtr Parser::parseStarOrTest()
{
    if (!isOp("*")) return parseTest();
    Nested nested(*this);
    auto star = makeExpr(ExprKind::Starred, m_tok.loc);
    advance();
    star->value = parseOrTest();
    return seal(star);
}

// test: lambdef | or_test ['if' or_test 'else' test]
ExprPtr Parser::parseTest()
{
    Nested nested(*this);
    if (isKeyword("lambda")) return parseLambda();
    SourceLoc start = m_tok.loc;
    ExprPtr e = parseOrTest();
    if (isKeyword("if")) {
        auto ifExp = makeExpr(ExprKind::IfExp, start);
        ifExp->opLoc = m_tok.loc;
        advance();
        ExprPtr condition = parseOrTest();
        if (!isKeyword("else"))
            parseError("'else'", "in the conditional expression 'a if c else b'");
        advance();
        ifExp->items = {e, condition, parseTest()};
        e = seal(ifExp);
    }
    if (isOp(":="))
        throw UserError(m_tok.loc, "the walrus operator ':=' is not supported in a TE script; "
                                   "assign with '=' in a statement of its own");
    return e;
}

// lambdef: 'lambda' [NAME (',' NAME)* [',']] ':' test
ExprPtr Parser::parseLambda()
{
    auto lambda = makeExpr(ExprKind::Lambda, m_tok.loc);
    advance();
    while (!isOp(":")) {
        if (isOp("*") || isOp("**"))
            throw UserError(m_tok.loc,
                            "lambda parameters like '*args' and '**kwargs' are not supported in a "
                            "TE script");
        if (m_tok.kind != TokenKind::Name) parseError("a parameter name or ':'", "in the lambda");
        if (std::find(lambda->params.begin(), lambda->params.end(), m_tok.text) !=
            lambda->params.end())
            throw UserError(m_tok.loc, "duplicate lambda parameter " + quoted(m_tok.text));
        lambda->params.push_back(m_tok.text);
        lambda->paramLocs.push_back(m_tok.loc);
        advance();
        if (isOp("="))
            throw UserError(m_tok.loc, "lambda parameters with default values are not supported "
                                       "in a TE script");
        if (!isOp(",")) break;
        advance();
    }
    if (!isOp(":")) parseError("':'", "after the lambda parameters");
    advance();
    lambda->value = parseTest();
    return seal(lambda);
}

// or_test: and_test ('or' and_test)*
ExprPtr Parser::parseOrTest()
{
    SourceLoc start = m_tok.loc;
    ExprPtr lhs = parseAndTest();
    while (isKeyword("or")) {
        Token op = m_tok;
        advance();
        lhs = makeOperation(ExprKind::BoolOp, start, op, lhs, parseAndTest());
    }
    return lhs;
}

// and_test: not_test ('and' not_test)*
ExprPtr Parser::parseAndTest()
{
    SourceLoc start = m_tok.loc;
    ExprPtr lhs = parseNotTest();
    while (isKeyword("and")) {
        Token op = m_tok;
        advance();
        lhs = makeOperation(ExprKind::BoolOp, start, op, lhs, parseNotTest());
    }
    return lhs;
}

// not_test: 'not' not_test | comparison
ExprPtr Parser::parseNotTest()
{
    if (!isKeyword("not")) return parseComparison();
    Nested nested(*this);
    auto e = makeExpr(ExprKind::Unary, m_tok.loc);
    e->opLoc = m_tok.loc;
    e->name = "not";
    advance();
    e->value = parseNotTest();
    return seal(e);
}

bool Parser::atComparisonOperator()
{
    if (m_tok.kind == TokenKind::Op)
        return isOp("<") || isOp("<=") || isOp(">") || isOp(">=") || isOp("==") || isOp("!=");
    return isKeyword("in") || isKeyword("is") || (isKeyword("not") && peek().isKeyword("in"));
}

// comparison: expr [('<' | '<=' | '>' | '>=' | '==' | '!=') expr]
// Chains and 'in' / 'not in' / 'is' are refused.
ExprPtr Parser::parseComparison()
{
    SourceLoc start = m_tok.loc;
    ExprPtr lhs = parseBinary(1);
    if (!atComparisonOperator()) return lhs;
    if (isKeyword("in") || isKeyword("not"))
        throw UserError(m_tok.loc, quoted(isKeyword("in") ? "in" : "not in") +
                                       " tests are not supported in a TE script");
    if (isKeyword("is")) {
        bool negated = peek().isKeyword("not");
        throw UserError(m_tok.loc, quoted(negated ? "is not" : "is") +
                                       " comparisons are not supported in a TE script; use " +
                                       quoted(negated ? "!=" : "=="));
    }
    Token op = m_tok;
    advance();
    ExprPtr e = makeOperation(ExprKind::Compare, start, op, lhs, parseBinary(1));
    if (atComparisonOperator())
        throw UserError(m_tok.loc, "chained comparisons ('a < b < c') are not supported in a TE "
                                   "script; write '(a < b) and (b < c)'");
    return e;
}

// Precedence climbing over the left-associative binary operators, loosest first:
// or_expr: xor_expr ('|' xor_expr)*        xor_expr: and_expr ('^' and_expr)*
// and_expr: shift ('&' shift)*             shift: arith (('<<' | '>>') arith)*
// arith: term (('+' | '-') term)*          term: factor (('*' | '/' | '//' | '%' | '@') factor)*
ExprPtr Parser::parseBinary(int minPrecedence)
{
    SourceLoc start = m_tok.loc;
    ExprPtr lhs = parseFactor();
    for (;;) {
        int precedence = binaryPrecedence(m_tok);
        if (precedence == 0 || precedence < minPrecedence) return lhs;
        Token op = m_tok;
        advance();
        lhs = makeOperation(ExprKind::Binary, start, op, lhs, parseBinary(precedence + 1));
    }
}

// factor: ('+' | '-' | '~') factor | power
ExprPtr Parser::parseFactor()
{
    if (!isOp("+") && !isOp("-") && !isOp("~")) return parsePower();
    Nested nested(*this);
    auto e = makeExpr(ExprKind::Unary, m_tok.loc);
    e->opLoc = m_tok.loc;
    e->name = m_tok.text;
    advance();
    e->value = parseFactor();
    return seal(e);
}

// power: primary ['**' factor]    -- right-associative, and tighter than a unary minus on its left
ExprPtr Parser::parsePower()
{
    SourceLoc start = m_tok.loc;
    ExprPtr base = parsePrimary();
    if (!isOp("**")) return base;
    Token op = m_tok;
    advance();
    return makeOperation(ExprKind::Binary, start, op, base, parseFactor());
}

// primary: atom ('.' NAME | '(' arguments ')' | '[' subscripts ']')*
ExprPtr Parser::parsePrimary()
{
    SourceLoc start = m_tok.loc;
    ExprPtr e = parseAtom();
    for (;;) {
        if (isOp(".")) {
            advance();
            if (m_tok.kind != TokenKind::Name) parseError("an attribute name", "after '.'");
            auto attribute = makeExpr(ExprKind::Attribute, start);
            attribute->opLoc = m_tok.loc;
            attribute->name = m_tok.text;
            attribute->value = e;
            advance();
            e = seal(attribute);
        } else if (isOp("(")) {
            e = parseCall(start, e);
        } else if (isOp("[")) {
            e = parseSubscript(start, e);
        } else {
            return e;
        }
    }
}

// arguments: [argument (',' argument)* [',']]
// argument: test | NAME '=' test    -- no positional argument after a keyword argument
ExprPtr Parser::parseCall(SourceLoc start, ExprPtr callee)
{
    Token open = m_tok;
    auto call = makeExpr(ExprKind::Call, start);
    call->opLoc = open.loc;
    call->value = std::move(callee);
    advance();
    while (canStartExpression()) {
        if (isOp("**"))
            throw UserError(m_tok.loc,
                            "'**' unpacking ('**kwargs') is not supported in a TE script");
        ExprPtr arg = parseStarOrTest();
        if (isKeyword("for")) refuseComprehension("generator expressions");
        if (isOp("=")) {
            if (arg->kind != ExprKind::Name)
                throw UserError(arg->loc, "a keyword argument needs a plain name before '='");
            for (const Keyword& keyword : call->keywords) {
                if (keyword.name == arg->name)
                    throw UserError(arg->loc,
                                    "keyword argument " + quoted(arg->name) + " is repeated");
            }
            advance();
            call->keywords.push_back({arg->name, arg->loc, parseTest()});
        } else {
            if (!call->keywords.empty())
                throw UserError(arg->loc, "positional argument follows keyword argument " +
                                              quoted(call->keywords.back().name));
            call->items.push_back(arg);
        }
        if (!isOp(",")) break;
        advance();
    }
    expectClose(")", open);
    return seal(call);
}

// subscripts: subscript (',' subscript)* [',']
// subscript: test | [test] ':' [test] [':' [test]]
ExprPtr Parser::parseSubscript(SourceLoc start, ExprPtr value)
{
    Token open = m_tok;
    auto subscript = makeExpr(ExprKind::Subscript, start);
    subscript->opLoc = open.loc;
    subscript->value = std::move(value);
    advance();
    if (isOp("]")) parseError("an index", "inside '[]'");
    auto endOfPart = [this] { return isOp(":") || isOp(",") || isOp("]"); };
    for (;;) {
        SourceLoc loc = m_tok.loc;
        ExprPtr first = isOp(":") ? nullptr : parseTest();
        if (isOp(":")) {
            auto slice = makeExpr(ExprKind::Slice, loc);
            slice->opLoc = m_tok.loc;
            slice->lhs = first;
            advance();
            if (!endOfPart()) slice->rhs = parseTest();
            if (isOp(":")) {
                advance();
                if (!endOfPart()) slice->value = parseTest();
            }
            first = seal(slice);
        }
        subscript->items.push_back(first);
        if (!isOp(",")) break;
        advance();
        if (isOp("]")) break;
    }
    expectClose("]", open);
    return seal(subscript);
}

// atom: NAME | NUMBER | STRING+ | 'True' | 'False' | 'None'
//     | '(' [testlist] ')' | '[' [testlist] ']'
ExprPtr Parser::parseAtom()
{
    SourceLoc loc = m_tok.loc;
    switch (m_tok.kind) {
    case TokenKind::Name: {
        auto e = makeExpr(ExprKind::Name, loc);
        e->name = m_tok.text;
        advance();
        return e;
    }
    case TokenKind::Int: {
        auto e = makeExpr(ExprKind::Int, loc);
        e->intValue = m_tok.intValue;
        advance();
        return e;
    }
    case TokenKind::Float: {
        auto e = makeExpr(ExprKind::Float, loc);
        e->floatValue = m_tok.floatValue;
        advance();
        return e;
    }
    case TokenKind::String: {
        auto e = makeExpr(ExprKind::String, loc);
        while (m_tok.kind == TokenKind::String) { // "ab" "cd" is "abcd", as in Python
            e->name += m_tok.text;
            advance();
        }
        return e;
    }
    case TokenKind::Keyword:
        if (isKeyword("True") || isKeyword("False")) {
            auto e = makeExpr(ExprKind::Bool, loc);
            e->boolValue = isKeyword("True");
            advance();
            return e;
        }
        if (isKeyword("None")) {
            advance();
            return makeExpr(ExprKind::None, loc);
        }
        if (isKeyword("yield") || isKeyword("await"))
            throw UserError(loc, quoted(m_tok.text) + " expressions are not supported in a TE "
                                                      "script");
        break;
    case TokenKind::Op:
        if (isOp("(")) return parseParenthesized();
        if (isOp("[")) return parseList();
        if (isOp("{")) return parseDict();
        if (isOp("*"))
            throw UserError(loc, "a starred expression ('*args') can only be an argument, an "
                                 "item of a list or tuple, or an assignment target");
        if (isOp("**"))
            throw UserError(loc, "'**' unpacking ('**kwargs') is not supported in a TE script");
        if (isOp("...")) throw UserError(loc, "'...' (Ellipsis) is not supported in a TE script");
        break;
    default: break;
    }
    bool afterOperator = m_prev.kind == TokenKind::Op || m_prev.kind == TokenKind::Keyword;
    parseError("an expression", afterOperator ? "after " + quoted(m_prev.text) : "");
}

// '(' [test (',' test)* [',']] ')'    -- a Tuple if empty or with a comma, else the test itself
ExprPtr Parser::parseParenthesized()
{
    Token open = m_tok;
    advance();
    auto tuple = makeExpr(ExprKind::Tuple, open.loc);
    if (isOp(")")) {
        advance();
        return seal(tuple);
    }
    ExprPtr first = parseStarOrTest();
    if (isKeyword("for")) refuseComprehension("generator expressions");
    if (!isOp(",")) {
        if (first->kind == ExprKind::Starred)
            throw UserError(first->loc, "a starred expression in parentheses needs a comma: "
                                        "'(*a,)'");
        expectClose(")", open);
        return first;
    }
    tuple->items.push_back(first);
    while (isOp(",")) {
        advance();
        if (!canStartExpression()) break;
        tuple->items.push_back(parseStarOrTest());
    }
    expectClose(")", open);
    return seal(tuple);
}

// '[' [test (',' test)* [',']] ']'
ExprPtr Parser::parseList()
{
    Token open = m_tok;
    advance();
    auto list = makeExpr(ExprKind::List, open.loc);
    while (canStartExpression()) {
        list->items.push_back(parseStarOrTest());
        if (list->items.size() == 1 && isKeyword("for")) refuseComprehension("list comprehensions");
        if (!isOp(",")) break;
        advance();
    }
    expectClose("]", open);
    return seal(list);
}

// '{' [test ':' test (',' test ':' test)* [',']] '}'    -- sets are refused
ExprPtr Parser::parseDict()
{
    Token open = m_tok;
    advance();
    auto dict = makeExpr(ExprKind::Dict, open.loc);
    while (canStartExpression()) {
        if (isOp("*") || isOp("**"))
            throw UserError(m_tok.loc, "unpacking inside '{...}' is not supported in a TE script");
        dict->items.push_back(parseTest());
        if (isKeyword("for")) refuseComprehension("dict comprehensions");
        if (!isOp(":"))
            throw UserError(m_tok.loc, "set literals are not supported in a TE script; a dict "
                                       "needs 'key: value'");
        advance();
        dict->items.push_back(parseTest());
        if (!isOp(",")) break;
        advance();
    }
    expectClose("}", open);
    return seal(dict);
}

void Parser::refuseComprehension(const char* what) const
{
    throw UserError(m_tok.loc, std::string(what) + " ('x for x in ...') are not supported in a "
                                                   "TE script");
}

} // namespace

ParseResult parseScript(const std::string& source)
{
    ParseResult result;
    try {
        Parser parser(source);
        result.module = parser.parseModule();
        result.ok = true;
    } catch (const UserError& error) {
        result.ok = false;
        result.error = error.diagnostic();
    }
    return result;
}

} // namespace loopscope::ast
