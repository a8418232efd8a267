# cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P embed.cmake: FILE's bytes as
# 'const char SYMBOL[]' (NUL-terminated) and 'const unsigned long SYMBOL_len'.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* made from ${IN} by cmake/embed.cmake */\nconst char ${NAME}[] = {\n${bytes}0 };\nconst unsigned long ${NAME}_len = ${len};\n")
