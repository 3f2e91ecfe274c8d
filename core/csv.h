/*
 * CSV that cannot attack its reader: the one writer of a text cell, for
 * every CSV fabcheck writes (report --csv, report --history --csv), which
 * a spreadsheet takes for text, never for a formula.
 */
#ifndef FC_CSV_H
#define FC_CSV_H

#include <stdio.h>

/* Writes the text @s as one CSV cell: quoted per RFC 4180 (between double
 * quotes, a double quote doubled) when it holds a comma, a double quote, a
 * CR or an LF, and with a ' before its text (inside the quotes, so that
 * the cell stays one cell) when it begins with =, +, -, @, a tab or a CR,
 * which a spreadsheet would take for the start of a formula (the OWASP
 * "CSV injection" rule). NULL is an empty cell. Numbers the program
 * formats itself are written as they are, not through this. */
void fc_csv_cell(FILE *f, const char *s);

#endif
