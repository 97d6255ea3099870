/* main.c - amp: measure the memory hierarchy from user space. */
#include "config.h"
#include "amp.h"

int main(int argc, char **argv)
{
	return amp_main(argc, argv);
}
