#include "te/Lexer.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>

namespace loopscope {

namespace {

constexpr std::string_view kKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

// Longest first, so that the first match is the longest one.
constexpr std::string_view kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==",
    "!=",  "->",  "+=",  "-=",  "*=",  "/=", "%=", "@=", "&=", "|=", "^=", ":=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

bool isIdentStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentChar(char c)
{
    return isIdentStart(c) || (c >= '0' && c <= '9');
}

bool isDecimal(char c)
{
    return c >= '0' && c <= '9';
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

bool isUtf8Continuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

int digitValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

bool isDigitOfBase(char c, int base)
{
    return digitValue(c) < base;
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Copy-pasting from web pages brings in typographic quotes and spaces; say what to type instead.
std::string unexpectedCharacterMessage(std::string_view src, std::size_t pos)
{
    auto c = static_cast<unsigned char>(src[pos]);
    if (c < 0x80) {
        if (c < 0x20 || c == 0x7F) {
            const char* hex = "0123456789ABCDEF";
            return std::string("unexpected control character 0x") + hex[c >> 4] + hex[c & 0xF];
        }
        return std::string("unexpected character '") + static_cast<char>(c) + "'";
    }
    std::size_t len = 1;
    while (pos + len < src.size() && isUtf8Continuation(src[pos + len]))
        ++len;
    std::uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t i = 1; i < len; ++i)
        cp = (cp << 6) | (src[pos + i] & 0x3F);
    std::string message = "unexpected character '" + std::string(src.substr(pos, len)) + "'";
    if (cp == 0x2018 || cp == 0x2019 || cp == 0x201C || cp == 0x201D)
        message += "; use straight quotes ' or \" around strings";
    else if (cp == 0x00A0)
        message += " (a non-breaking space); use a plain space";
    return message;
}

} // namespace

Lexer::Lexer(std::string_view source) : m_src(source)
{
    if (m_src.substr(0, 3) == "\xEF\xBB\xBF") m_pos = m_lineStart = 3; // UTF-8 byte order mark
    m_lastEndOffset = m_pos;
}

char Lexer::peekChar(std::size_t ahead) const
{
    return m_pos + ahead < m_src.size() ? m_src[m_pos + ahead] : '\0';
}

bool Lexer::atNewline() const
{
    return !atEnd() && (m_src[m_pos] == '\n' || m_src[m_pos] == '\r');
}

// Columns count characters, so the bytes that continue a UTF-8 sequence do not move the column.
void Lexer::advance()
{
    ++m_pos;
    if (atEnd() || !isUtf8Continuation(m_src[m_pos])) ++m_col;
}

void Lexer::advanceNewline()
{
    if (m_src[m_pos] == '\r' && peekChar(1) == '\n') ++m_pos;
    ++m_pos;
    ++m_line;
    m_col = 1;
    m_lineStart = m_pos;
}

// At the start of a line that is exactly the end-of-script marker, the source ends there.
void Lexer::endAtMarkerLine()
{
    const std::string_view marker = ast::kEndOfScriptMarker;
    if (m_src.substr(m_pos, marker.size()) != marker) return;
    std::size_t after = m_pos + marker.size();
    if (after < m_src.size() && m_src[after] != '\n' && m_src[after] != '\r') return;
    m_src.remove_suffix(m_src.size() - m_pos);
}

void Lexer::skipBlanks()
{
    while (!atEnd() && isBlank(m_src[m_pos]))
        advance();
}

void Lexer::readComment()
{
    ast::Comment comment;
    comment.loc = here();
    comment.ownLine = std::all_of(m_src.begin() + static_cast<std::ptrdiff_t>(m_lineStart),
                                  m_src.begin() + static_cast<std::ptrdiff_t>(m_pos), isBlank);
    advance(); // '#'
    std::size_t start = m_pos;
    while (!atEnd() && !atNewline())
        advance();
    std::string_view text = m_src.substr(start, m_pos - start);
    while (!text.empty() && isBlank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);
    comment.text = std::string(text);
    m_comments.push_back(std::move(comment));
}

Token Lexer::makeToken(TokenKind kind, std::size_t start, SourceLoc loc) const
{
    Token token;
    token.kind = kind;
    token.text = std::string(m_src.substr(start, m_pos - start));
    token.loc = loc;
    token.end = here();
    token.offset = start;
    token.endOffset = m_pos;
    return token;
}

Token Lexer::dedent()
{
    --m_pendingDedents;
    Token token;
    token.kind = TokenKind::Dedent;
    token.loc = token.end = here();
    token.offset = token.endOffset = m_pos;
    return token;
}

Token Lexer::next()
{
    if (m_pendingDedents > 0) return dedent();
    for (;;) {
        if (m_pos == m_lineStart) endAtMarkerLine();
        if (m_atLineStart) {
            skipBlanks();
            if (atEnd()) break;
            if (m_src[m_pos] == '#') readComment();
            if (atNewline()) {
                advanceNewline();
                continue;
            }
            if (atEnd()) break;
            m_atLineStart = false;
            // Python's indentation: a tab goes to the next multiple of 8 columns.
            int width = 0;
            for (std::size_t p = m_lineStart; p < m_pos; ++p)
                width = m_src[p] == '\t' ? (width / 8 + 1) * 8 : width + 1;
            if (width > m_indents.back()) {
                if (!m_blockOpened) throw UserError(here(), "unexpected indent");
                if (m_indents.size() > static_cast<std::size_t>(ast::kMaxBlockDepth))
                    throw UserError(here(), "too many levels of indentation (at most " +
                                                std::to_string(ast::kMaxBlockDepth) + ")");
                m_indents.push_back(width);
                m_blockOpened = false;
                Token indent;
                indent.kind = TokenKind::Indent;
                indent.loc = indent.end = here();
                indent.offset = indent.endOffset = m_pos;
                return indent;
            }
            m_blockOpened = false;
            while (width < m_indents.back()) {
                m_indents.pop_back();
                ++m_pendingDedents;
            }
            if (width != m_indents.back())
                throw UserError(here(), "unindent does not match any outer indentation level");
            if (m_pendingDedents > 0) return dedent();
        }
        skipBlanks();
        if (atEnd()) break;
        char c = m_src[m_pos];
        if (c == '#') {
            readComment();
            continue;
        }
        if (c == '\\') {
            SourceLoc loc = here();
            advance();
            if (atEnd())
                throw UserError(loc, "unexpected end of file after line continuation '\\'");
            if (!atNewline())
                throw UserError(loc, "unexpected character after line continuation '\\'");
            advanceNewline();
            continue;
        }
        if (atNewline()) {
            advanceNewline();
            if (!m_brackets.empty()) continue; // implicit line joining
            m_atLineStart = true;
            if (m_lineHasTokens) {
                m_lineHasTokens = false;
                m_blockOpened = m_lastIsColon;
                Token newline;
                newline.kind = TokenKind::Newline;
                newline.loc = newline.end = m_lastEnd;
                newline.offset = newline.endOffset = m_lastEndOffset;
                return newline;
            }
            continue;
        }

        Token token;
        if (isIdentStart(c)) {
            token = lexNameOrString();
        } else if (isDecimal(c) || (c == '.' && isDecimal(peekChar(1)))) {
            token = lexNumber();
        } else if (c == '\'' || c == '"') {
            token = lexString(m_pos, here(), false);
        } else {
            token = lexOperator();
        }
        m_lineHasTokens = true;
        m_lastIsColon = token.isOp(":");
        m_lastEnd = token.end;
        m_lastEndOffset = token.endOffset;
        return token;
    }

    if (!m_brackets.empty()) {
        const OpenBracket& open = m_brackets.back();
        throw UserError(open.loc, std::string("'") + open.ch + "' was never closed");
    }
    if (!m_lineHasTokens && m_indents.size() > 1) {
        m_pendingDedents = static_cast<int>(m_indents.size()) - 1;
        m_indents.resize(1);
        return dedent();
    }
    Token token;
    token.kind = m_lineHasTokens ? TokenKind::Newline : TokenKind::End;
    token.loc = token.end = m_lineHasTokens ? m_lastEnd : here();
    token.offset = token.endOffset = m_lineHasTokens ? m_lastEndOffset : m_pos;
    m_lineHasTokens = false;
    return token;
}

Token Lexer::lexNameOrString()
{
    std::size_t start = m_pos;
    SourceLoc loc = here();
    while (!atEnd() && isIdentChar(m_src[m_pos]))
        advance();
    std::string word(m_src.substr(start, m_pos - start));

    if (!atEnd() && (m_src[m_pos] == '\'' || m_src[m_pos] == '"') && word.size() <= 2) {
        std::string prefix = word;
        for (char& ch : prefix)
            ch = static_cast<char>(ch | 0x20); // ASCII lower case
        static constexpr std::string_view kPrefixes[] = {"r",  "u",  "b",  "f",
                                                         "br", "rb", "fr", "rf"};
        if (std::find(std::begin(kPrefixes), std::end(kPrefixes), prefix) != std::end(kPrefixes)) {
            if (prefix.find('f') != std::string::npos)
                throw UserError(loc, "f-strings are not supported in a TE script");
            return lexString(start, loc, prefix.find('r') != std::string::npos);
        }
    }
    bool keyword =
        std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
    return makeToken(keyword ? TokenKind::Keyword : TokenKind::Name, start, loc);
}

std::string Lexer::literalFrom(std::size_t start) const
{
    std::size_t end = m_pos;
    while (end < m_src.size() && (isIdentChar(m_src[end]) || m_src[end] == '.'))
        ++end;
    return std::string(m_src.substr(start, end - start));
}

Token Lexer::lexNumber()
{
    std::size_t start = m_pos;
    SourceLoc loc = here();

    // Digits of one base with single underscores between them, returned without the underscores.
    auto readDigits = [this](int base, bool underscoreFirst) {
        std::string digits;
        bool mayUnderscore = underscoreFirst;
        for (;;) {
            if (!atEnd() && isDigitOfBase(m_src[m_pos], base)) {
                digits += m_src[m_pos];
                advance();
                mayUnderscore = true;
            } else if (peekChar() == '_' && mayUnderscore && isDigitOfBase(peekChar(1), base)) {
                advance();
                mayUnderscore = false;
            } else {
                return digits;
            }
        }
    };
    auto toInt = [&](const std::string& digits, int base) {
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        std::int64_t value = 0;
        for (char d : digits) {
            int v = digitValue(d);
            if (value > (kMax - v) / base)
                throw UserError(loc, "integer literal '" + literalFrom(start) +
                                         "' is too large; the largest supported integer is " +
                                         std::to_string(kMax));
            value = value * base + v;
        }
        Token token = makeToken(TokenKind::Int, start, loc);
        token.intValue = value;
        return token;
    };

    char prefix = static_cast<char>(peekChar(1) | 0x20);
    if (m_src[m_pos] == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
        int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
        const char* baseName = prefix == 'x' ? "hexadecimal" : prefix == 'o' ? "octal" : "binary";
        advance();
        advance();
        std::string digits = readDigits(base, true);
        if (digits.empty() || (!atEnd() && isIdentChar(m_src[m_pos])))
            throw UserError(loc, std::string("invalid ") + baseName + " literal '" +
                                     literalFrom(start) + "'");
        return toInt(digits, base);
    }

    std::string whole = readDigits(10, false);
    std::string fraction;
    std::string exponent;
    bool isFloat = false;
    if (peekChar() == '.') {
        isFloat = true;
        advance();
        fraction = readDigits(10, false);
    }
    if ((peekChar() | 0x20) == 'e') {
        char sign = peekChar(1);
        std::size_t digitAt = (sign == '+' || sign == '-') ? 2 : 1;
        if (isDecimal(peekChar(digitAt))) {
            isFloat = true;
            advance();
            if (digitAt == 2) {
                if (sign == '-') exponent = "-";
                advance();
            }
            exponent += readDigits(10, false);
        }
    }
    if ((peekChar() | 0x20) == 'j')
        throw UserError(loc, "complex numbers ('" + literalFrom(start) +
                                 "') are not supported in a TE script");
    if (!atEnd() && isIdentChar(m_src[m_pos]))
        throw UserError(loc, "invalid decimal literal '" + literalFrom(start) + "'");

    if (!isFloat) {
        bool leadingZero = whole.size() > 1 && whole[0] == '0';
        if (leadingZero && whole.find_first_not_of('0') != std::string::npos)
            throw UserError(loc, "leading zeros in decimal integer literals are not permitted; "
                                 "use an 0o prefix for octal integers");
        return toInt(whole, 10);
    }
    // from_chars, unlike strtod, ignores the C locale, which a GUI host may have changed.
    std::string normalized =
        (whole.empty() ? "0" : whole) + "." + (fraction.empty() ? "0" : fraction);
    if (!exponent.empty()) normalized += "e" + exponent;
    Token token = makeToken(TokenKind::Float, start, loc);
    auto [end, error] =
        std::from_chars(normalized.data(), normalized.data() + normalized.size(), token.floatValue);
    if (error != std::errc() || end != normalized.data() + normalized.size())
        throw UserError(loc, "float literal '" + token.text + "' is out of range");
    return token;
}

Token Lexer::lexString(std::size_t start, SourceLoc loc, bool raw)
{
    char quote = m_src[m_pos];
    bool triple = peekChar(1) == quote && peekChar(2) == quote;
    for (int i = 0; i < (triple ? 3 : 1); ++i)
        advance();
    const char* unterminated =
        triple ? "unterminated triple-quoted string literal" : "unterminated string literal";

    std::string text;
    for (;;) {
        if (atEnd()) throw UserError(loc, unterminated);
        char c = m_src[m_pos];
        if (c == quote && (!triple || (peekChar(1) == quote && peekChar(2) == quote))) {
            for (int i = 0; i < (triple ? 3 : 1); ++i)
                advance();
            break;
        }
        if (atNewline()) {
            if (!triple) throw UserError(loc, unterminated);
            advanceNewline();
            text += '\n';
        } else if (c == '\\') {
            lexEscape(text, raw);
        } else {
            text += c;
            advance();
        }
    }
    Token token = makeToken(TokenKind::String, start, loc);
    token.text = std::move(text);
    return token;
}

// Python's escapes; unknown ones keep their backslash, as Python does.
void Lexer::lexEscape(std::string& out, bool raw)
{
    SourceLoc loc = here();
    advance();           // '\'
    if (atEnd()) return; // the caller reports the unterminated string
    if (atNewline()) {
        if (raw) out += "\\\n";
        advanceNewline();
        return;
    }
    char c = m_src[m_pos];
    if (raw) {
        out += '\\';
        out += c;
        advance();
        return;
    }

    auto readHex = [&](int count, char letter) {
        std::uint32_t value = 0;
        for (int i = 0; i < count; ++i) {
            if (!isDigitOfBase(peekChar(), 16))
                throw UserError(loc, std::string("invalid \\") + letter + " escape: expected " +
                                         std::to_string(count) + " hexadecimal digits");
            value = value * 16 + static_cast<std::uint32_t>(digitValue(peekChar()));
            advance();
        }
        return value;
    };

    advance();
    switch (c) {
    case '\\':
    case '\'':
    case '"': out += c; break;
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'v': out += '\v'; break;
    case 'x': appendUtf8(out, readHex(2, 'x')); break;
    case 'u': appendUtf8(out, readHex(4, 'u')); break;
    case 'U': {
        std::uint32_t cp = readHex(8, 'U');
        if (cp > 0x10FFFF) throw UserError(loc, "invalid \\U escape: not a Unicode character");
        appendUtf8(out, cp);
        break;
    }
    case 'N': throw UserError(loc, "\\N{...} escapes are not supported in a TE script");
    default:
        if (c >= '0' && c <= '7') {
            std::uint32_t value = static_cast<std::uint32_t>(c - '0');
            for (int i = 0; i < 2 && peekChar() >= '0' && peekChar() <= '7'; ++i) {
                value = value * 8 + static_cast<std::uint32_t>(peekChar() - '0');
                advance();
            }
            appendUtf8(out, value);
        } else {
            out += '\\';
            out += c;
        }
    }
}

Token Lexer::lexOperator()
{
    std::size_t start = m_pos;
    SourceLoc loc = here();
    std::string_view rest = m_src.substr(m_pos);
    auto op = std::find_if(std::begin(kOperators), std::end(kOperators),
                           [&](std::string_view o) { return rest.substr(0, o.size()) == o; });
    if (op == std::end(kOperators)) throw UserError(loc, unexpectedCharacterMessage(m_src, m_pos));
    for (std::size_t i = 0; i < op->size(); ++i)
        advance();

    char c = (*op)[0];
    if (op->size() == 1 && (c == '(' || c == '[' || c == '{')) {
        m_brackets.push_back({c, loc});
    } else if (op->size() == 1 && (c == ')' || c == ']' || c == '}')) {
        if (m_brackets.empty()) throw UserError(loc, std::string("unmatched '") + c + "'");
        OpenBracket open = m_brackets.back();
        char expected = open.ch == '(' ? ')' : open.ch == '[' ? ']' : '}';
        if (c != expected)
            throw UserError(loc, std::string("closing '") + c + "' does not match '" + open.ch +
                                     "' at " + std::to_string(open.loc.line) + ":" +
                                     std::to_string(open.loc.col));
        m_brackets.pop_back();
    }
    return makeToken(TokenKind::Op, start, loc);
}

std::vector<Token> tokenize(std::string_view source)
{
    Lexer lexer(source);
    std::vector<Token> tokens;
    do {
        tokens.push_back(lexer.next());
    } while (tokens.back().kind != TokenKind::End);
    return tokens;
}

} // namespace loopscope
