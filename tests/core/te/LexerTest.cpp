// The TE script lexer: token kinds, literal values, locations, line joining and lexical errors.
#include "te/Lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace loopscope {
namespace {

std::string kindName(TokenKind k)
{
    switch (k) {
    case TokenKind::Name: return "Name";
    case TokenKind::Keyword: return "Keyword";
    case TokenKind::Int: return "Int";
    case TokenKind::Float: return "Float";
    case TokenKind::String: return "String";
    case TokenKind::Op: return "Op";
    case TokenKind::Newline: return "Newline";
    case TokenKind::Indent: return "Indent";
    case TokenKind::Dedent: return "Dedent";
    case TokenKind::End: return "End";
    }
    return "?";
}

// "Kind:text" per token, Newline and End bare, joined by spaces.
std::string summary(std::string_view source)
{
    std::string out;
    for (const Token& t : tokenize(source)) {
        if (!out.empty()) out += " ";
        out += kindName(t.kind);
        if (t.kind != TokenKind::Newline && t.kind != TokenKind::End &&
            t.kind != TokenKind::Indent && t.kind != TokenKind::Dedent)
            out += ":" + t.text;
    }
    return out;
}

// "LINE:COL: message" of the error tokenizing `source` reports, or "no error".
std::string errorOf(std::string_view source)
{
    try {
        tokenize(source);
    } catch (const UserError& e) {
        return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " +
               e.message();
    }
    return "no error";
}

TEST(Lexer, NamesKeywordsNumbersAndOperatorsHaveTheirKinds)
{
    EXPECT_EQ(summary("f = lambda i: i // 2 if True else None\n"),
              "Name:f Op:= Keyword:lambda Name:i Op:: Name:i Op:// Int:2 Keyword:if Keyword:True "
              "Keyword:else Keyword:None Newline End");
}

TEST(Lexer, IntegerLiteralsInEveryBaseHaveTheirValues)
{
    std::vector<Token> t = tokenize("0x1F 0o17 0b101 1_000 0 9223372036854775807");
    ASSERT_EQ(t.size(), 8u);
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(t[i].kind, TokenKind::Int) << i;
        values.push_back(t[i].intValue);
    }
    EXPECT_EQ(values, (std::vector<std::int64_t>{31, 15, 5, 1000, 0, 9223372036854775807}));
    EXPECT_EQ(t[3].text, "1_000"); // the spelling as written
}

TEST(Lexer, FloatLiteralsHaveTheirValues)
{
    std::vector<Token> t = tokenize("1.5 .25 1e3 2E-2 3.");
    ASSERT_EQ(t.size(), 7u);
    std::vector<double> values;
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(t[i].kind, TokenKind::Float) << i;
        values.push_back(t[i].floatValue);
    }
    EXPECT_EQ(values, (std::vector<double>{1.5, 0.25, 1000.0, 0.02, 3.0}));
}

TEST(Lexer, StringsAreDecodedAndRawStringsKeepBackslashes)
{
    std::vector<Token> t = tokenize(R"('a\tb' "q\"" r'\n' "\x41\u00e9" 'x' 'y')");
    ASSERT_EQ(t.size(), 8u);
    for (std::size_t i = 0; i < 6; ++i)
        EXPECT_EQ(t[i].kind, TokenKind::String) << i;
    EXPECT_EQ(t[0].text, "a\tb");
    EXPECT_EQ(t[1].text, "q\"");
    EXPECT_EQ(t[2].text, "\\n");
    EXPECT_EQ(t[3].text, "A\xC3\xA9");
    EXPECT_EQ(t[4].text, "x"); // adjacent literals stay separate tokens
    EXPECT_EQ(t[5].text, "y");
}

TEST(Lexer, TokensCarryTheirLineColumnAndByteRange)
{
    std::vector<Token> t = tokenize("A = te.placeholder\nBB = 1\n");
    ASSERT_EQ(t.size(), 11u);
    EXPECT_EQ(t[2].text, "te");
    EXPECT_EQ(t[2].loc.line, 1);
    EXPECT_EQ(t[2].loc.col, 5);
    EXPECT_EQ(t[4].text, "placeholder");
    EXPECT_EQ(t[4].end.col, 19);
    EXPECT_EQ(t[4].offset, 7u);
    EXPECT_EQ(t[4].endOffset, 18u);
    // The Newline sits where the line's code ends.
    EXPECT_EQ(t[5].kind, TokenKind::Newline);
    EXPECT_EQ(t[5].loc.line, 1);
    EXPECT_EQ(t[5].loc.col, 19);
    EXPECT_EQ(t[6].text, "BB");
    EXPECT_EQ(t[6].loc.line, 2);
    EXPECT_EQ(t[6].loc.col, 1);
    EXPECT_EQ(t[8].loc.col, 6);
}

TEST(Lexer, ColumnsCountCharactersNotBytes)
{
    std::vector<Token> t = tokenize("s = '\xC3\xA9' + x");
    ASSERT_EQ(t.size(), 7u);
    EXPECT_EQ(t[4].text, "x");
    EXPECT_EQ(t[4].loc.col, 11); // characters
    EXPECT_EQ(t[4].offset, 11u); // bytes, 0-based: one more than the column would suggest
}

TEST(Lexer, BracketsAndBackslashesJoinLines)
{
    EXPECT_EQ(
        summary("f(a,\n      b)\nc = 1 + \\\n  2\n"),
        "Name:f Op:( Name:a Op:, Name:b Op:) Newline Name:c Op:= Int:1 Op:+ Int:2 Newline End");
}

TEST(Lexer, BlankAndCommentLinesMakeNoNewlinesAndCommentsAreKept)
{
    Lexer lexer("# top\n\nx = 1  # trailing \n\n\r\ny\n");
    std::string kinds;
    for (Token t = lexer.next(); t.kind != TokenKind::End; t = lexer.next())
        kinds += kindName(t.kind) + " ";
    EXPECT_EQ(kinds, "Name Op Int Newline Name Newline ");
    ASSERT_EQ(lexer.comments().size(), 2u);
    EXPECT_EQ(lexer.comments()[0].text, "top");
    EXPECT_TRUE(lexer.comments()[0].ownLine);
    EXPECT_EQ(lexer.comments()[1].text, "trailing");
    EXPECT_FALSE(lexer.comments()[1].ownLine);
    EXPECT_EQ(lexer.comments()[1].loc.line, 3);
    EXPECT_EQ(lexer.comments()[1].loc.col, 8);
    EXPECT_EQ(lexer.next().kind, TokenKind::End); // End again after End
}

TEST(Lexer, AnUnterminatedStringIsAnErrorAtItsColumn)
{
    EXPECT_EQ(errorOf("x = 'abc\ny = 1\n"), "1:5: unterminated string literal");
    EXPECT_EQ(errorOf("x = 1\ny = \"\"\"abc\n"), "2:5: unterminated triple-quoted string literal");
}

TEST(Lexer, AnIndentedLineIsAnErrorWhetherSpacesOrTabs)
{
    EXPECT_EQ(errorOf("x = 1\n    y = 2\n"), "2:5: unexpected indent");
    EXPECT_EQ(errorOf("x = 1\n\t y = 2\n"), "2:3: unexpected indent");
    // Lazily: the tokens before the bad line come out first.
    Lexer lexer("x\n  y\n");
    EXPECT_EQ(lexer.next().text, "x");
    EXPECT_EQ(lexer.next().kind, TokenKind::Newline);
    EXPECT_THROW(lexer.next(), UserError);
}

TEST(Lexer, BracketMistakesPointAtTheBracket)
{
    EXPECT_EQ(errorOf("f(a, [b]"), "1:2: '(' was never closed");
    EXPECT_EQ(errorOf("f(a]"), "1:4: closing ']' does not match '(' at 1:2");
    EXPECT_EQ(errorOf("a)"), "1:2: unmatched ')'");
}

TEST(Lexer, BadNumbersAreErrors)
{
    EXPECT_EQ(errorOf("x = 007"), "1:5: leading zeros in decimal integer literals are not "
                                  "permitted; use an 0o prefix for octal integers");
    EXPECT_EQ(errorOf("9223372036854775808"),
              "1:1: integer literal '9223372036854775808' is too large; the largest supported "
              "integer is 9223372036854775807");
    EXPECT_EQ(errorOf("0x"), "1:1: invalid hexadecimal literal '0x'");
    EXPECT_EQ(errorOf("12abc"), "1:1: invalid decimal literal '12abc'");
    EXPECT_EQ(errorOf("1j"), "1:1: complex numbers ('1j') are not supported in a TE script");
}

TEST(Lexer, UnexpectedCharactersAreNamedWithAHint)
{
    EXPECT_EQ(errorOf("a $ b"), "1:3: unexpected character '$'");
    EXPECT_EQ(
        errorOf("x = \xE2\x80\x9C"
                "a"),
        "1:5: unexpected character '\xE2\x80\x9C'; use straight quotes ' or \" around strings");
    EXPECT_EQ(errorOf("x = f'{a}'"), "1:5: f-strings are not supported in a TE script");
}

} // namespace
} // namespace loopscope
