/* wasp command -- stub */
#include "wasp.h"
int main(void){return 0;}
