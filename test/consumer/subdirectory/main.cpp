#include "../scenario.hpp"

int main() { return consumer::run(); }
