// The backend under test: a toy eager CPU backend with one bug, and a GPU one this machine lacks.
#pragma once

void register_toy_backends();  // "toy_cpu" and "toy_gpu"
