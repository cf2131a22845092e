/* fuzz_load.c -- stub */
int main(void){return 0;}
