// Splits TE script source into Python tokens on demand, so the first mistake in the file is the
// first one reported.
#pragma once

#include "ir/Diagnostic.h"
#include "te/Ast.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

enum class TokenKind {
    Name,    // identifier that is not a keyword
    Keyword, // Python keyword (True, None, lambda, for, ...)
    Int,     // intValue
    Float,   // floatValue
    String,  // text holds the decoded value; adjacent literals stay separate tokens
    Op,      // operator or delimiter, e.g. "+", "//=", "(", ":=", "..."
    Newline, // end of a logical line (never inside brackets)
    Indent,  // a line indented deeper than the one before, which ended with ':'
    Dedent,  // one per indentation level that a line goes back out of
    End,     // end of the source
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text; // spelling as written, except String: the decoded value
    SourceLoc loc;    // first character
    SourceLoc end;    // just past the last character (Newline/End: where the line's code ends)
    std::size_t offset = 0; // byte range of the spelling in the source
    std::size_t endOffset = 0;
    std::int64_t intValue = 0;
    double floatValue = 0.0;

    bool isOp(std::string_view op) const { return kind == TokenKind::Op && text == op; }
    bool isKeyword(std::string_view kw) const { return kind == TokenKind::Keyword && text == kw; }
};

// Tokenizes Python code. Indentation is Python's: an Indent token where a line is indented deeper
// after a line that ended with ':' (anywhere else an indented line is an error, "unexpected
// indent"), a Dedent for each level a line goes back out of. Lexing is lazy so that a syntax error
// earlier in the file is found before a lexical one later in it. The source ends at a line that is
// exactly ast::kEndOfScriptMarker (End is at that line's start). Errors are thrown as UserError.
// The source must outlive the lexer.
class Lexer {
public:
    explicit Lexer(std::string_view source);

    // The next token; after End, End again.
    Token next();

    // Comments seen so far, in source order (all of them once End was returned).
    const std::vector<ast::Comment>& comments() const { return m_comments; }

private:
    struct OpenBracket {
        char ch;
        SourceLoc loc;
    };

    bool atEnd() const { return m_pos >= m_src.size(); }
    char peekChar(std::size_t ahead = 0) const;
    bool atNewline() const;
    SourceLoc here() const { return {m_line, m_col}; }
    void advance();
    void advanceNewline();
    void endAtMarkerLine();
    void skipBlanks();
    void readComment();
    Token makeToken(TokenKind kind, std::size_t start, SourceLoc loc) const;
    Token lexNameOrString();
    Token lexNumber();
    Token lexString(std::size_t start, SourceLoc loc, bool raw);
    void lexEscape(std::string& out, bool raw);
    Token lexOperator();
    Token dedent();
    std::string literalFrom(std::size_t start) const;

    std::string_view m_src;
    std::size_t m_pos = 0;
    int m_line = 1;
    int m_col = 1;
    std::size_t m_lineStart = 0;
    bool m_atLineStart = true;
    bool m_lineHasTokens = false; // the current logical line produced a token already
    SourceLoc m_lastEnd{1, 1};
    std::size_t m_lastEndOffset = 0;
    std::vector<OpenBracket> m_brackets;
    std::vector<int> m_indents{0}; // the indentation widths of the open blocks
    int m_pendingDedents = 0;
    bool m_lastIsColon = false; // the last token was ':'
    bool m_blockOpened = false; // the last logical line ended with ':'
    std::vector<ast::Comment> m_comments;
};

// All tokens up to and including End; throws UserError like Lexer::next.
std::vector<Token> tokenize(std::string_view source);

} // namespace loopscope
