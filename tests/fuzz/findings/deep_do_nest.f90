program p
  integer :: n
  real :: a(n)
do i0 = 1, n
do i1 = 1, n
do i2 = 1, n
do i3 = 1, n
do i4 = 1, n
do i5 = 1, n
do i6 = 1, n
do i7 = 1, n
do i8 = 1, n
do i9 = 1, n
do i10 = 1, n
do i11 = 1, n
do i12 = 1, n
do i13 = 1, n
do i14 = 1, n
do i15 = 1, n
do i16 = 1, n
do i17 = 1, n
do i18 = 1, n
do i19 = 1, n
do i20 = 1, n
do i21 = 1, n
do i22 = 1, n
do i23 = 1, n
do i24 = 1, n
do i25 = 1, n
do i26 = 1, n
do i27 = 1, n
do i28 = 1, n
do i29 = 1, n
do i30 = 1, n
do i31 = 1, n
do i32 = 1, n
do i33 = 1, n
do i34 = 1, n
do i35 = 1, n
do i36 = 1, n
do i37 = 1, n
do i38 = 1, n
do i39 = 1, n
do i40 = 1, n
do i41 = 1, n
do i42 = 1, n
do i43 = 1, n
do i44 = 1, n
do i45 = 1, n
do i46 = 1, n
do i47 = 1, n
do i48 = 1, n
do i49 = 1, n
do i50 = 1, n
do i51 = 1, n
do i52 = 1, n
do i53 = 1, n
do i54 = 1, n
do i55 = 1, n
do i56 = 1, n
do i57 = 1, n
do i58 = 1, n
do i59 = 1, n
do i60 = 1, n
do i61 = 1, n
do i62 = 1, n
do i63 = 1, n
do i64 = 1, n
do i65 = 1, n
do i66 = 1, n
do i67 = 1, n
do i68 = 1, n
do i69 = 1, n
do i70 = 1, n
do i71 = 1, n
do i72 = 1, n
do i73 = 1, n
do i74 = 1, n
do i75 = 1, n
do i76 = 1, n
do i77 = 1, n
do i78 = 1, n
do i79 = 1, n
do i80 = 1, n
do i81 = 1, n
do i82 = 1, n
do i83 = 1, n
do i84 = 1, n
do i85 = 1, n
do i86 = 1, n
do i87 = 1, n
do i88 = 1, n
do i89 = 1, n
do i90 = 1, n
do i91 = 1, n
do i92 = 1, n
do i93 = 1, n
do i94 = 1, n
do i95 = 1, n
do i96 = 1, n
do i97 = 1, n
do i98 = 1, n
do i99 = 1, n
do i100 = 1, n
do i101 = 1, n
do i102 = 1, n
do i103 = 1, n
do i104 = 1, n
do i105 = 1, n
do i106 = 1, n
do i107 = 1, n
do i108 = 1, n
do i109 = 1, n
do i110 = 1, n
do i111 = 1, n
do i112 = 1, n
do i113 = 1, n
do i114 = 1, n
do i115 = 1, n
do i116 = 1, n
do i117 = 1, n
do i118 = 1, n
do i119 = 1, n
do i120 = 1, n
do i121 = 1, n
do i122 = 1, n
do i123 = 1, n
do i124 = 1, n
do i125 = 1, n
do i126 = 1, n
do i127 = 1, n
do i128 = 1, n
do i129 = 1, n
do i130 = 1, n
do i131 = 1, n
do i132 = 1, n
do i133 = 1, n
do i134 = 1, n
do i135 = 1, n
do i136 = 1, n
do i137 = 1, n
do i138 = 1, n
do i139 = 1, n
do i140 = 1, n
do i141 = 1, n
do i142 = 1, n
do i143 = 1, n
do i144 = 1, n
do i145 = 1, n
do i146 = 1, n
do i147 = 1, n
do i148 = 1, n
do i149 = 1, n
do i150 = 1, n
do i151 = 1, n
do i152 = 1, n
do i153 = 1, n
do i154 = 1, n
do i155 = 1, n
do i156 = 1, n
do i157 = 1, n
do i158 = 1, n
do i159 = 1, n
do i160 = 1, n
do i161 = 1, n
do i162 = 1, n
do i163 = 1, n
do i164 = 1, n
do i165 = 1, n
do i166 = 1, n
do i167 = 1, n
do i168 = 1, n
do i169 = 1, n
do i170 = 1, n
do i171 = 1, n
do i172 = 1, n
do i173 = 1, n
do i174 = 1, n
do i175 = 1, n
do i176 = 1, n
do i177 = 1, n
do i178 = 1, n
do i179 = 1, n
do i180 = 1, n
do i181 = 1, n
do i182 = 1, n
do i183 = 1, n
do i184 = 1, n
do i185 = 1, n
do i186 = 1, n
do i187 = 1, n
do i188 = 1, n
do i189 = 1, n
do i190 = 1, n
do i191 = 1, n
do i192 = 1, n
do i193 = 1, n
do i194 = 1, n
do i195 = 1, n
do i196 = 1, n
do i197 = 1, n
do i198 = 1, n
do i199 = 1, n
do i200 = 1, n
do i201 = 1, n
do i202 = 1, n
do i203 = 1, n
do i204 = 1, n
do i205 = 1, n
do i206 = 1, n
do i207 = 1, n
do i208 = 1, n
do i209 = 1, n
do i210 = 1, n
do i211 = 1, n
do i212 = 1, n
do i213 = 1, n
do i214 = 1, n
do i215 = 1, n
do i216 = 1, n
do i217 = 1, n
do i218 = 1, n
do i219 = 1, n
do i220 = 1, n
do i221 = 1, n
do i222 = 1, n
do i223 = 1, n
do i224 = 1, n
do i225 = 1, n
do i226 = 1, n
do i227 = 1, n
do i228 = 1, n
do i229 = 1, n
do i230 = 1, n
do i231 = 1, n
do i232 = 1, n
do i233 = 1, n
do i234 = 1, n
do i235 = 1, n
do i236 = 1, n
do i237 = 1, n
do i238 = 1, n
do i239 = 1, n
do i240 = 1, n
do i241 = 1, n
do i242 = 1, n
do i243 = 1, n
do i244 = 1, n
do i245 = 1, n
do i246 = 1, n
do i247 = 1, n
do i248 = 1, n
do i249 = 1, n
do i250 = 1, n
do i251 = 1, n
do i252 = 1, n
do i253 = 1, n
do i254 = 1, n
do i255 = 1, n
do i256 = 1, n
do i257 = 1, n
do i258 = 1, n
do i259 = 1, n
do i260 = 1, n
do i261 = 1, n
do i262 = 1, n
do i263 = 1, n
do i264 = 1, n
do i265 = 1, n
do i266 = 1, n
do i267 = 1, n
do i268 = 1, n
do i269 = 1, n
do i270 = 1, n
do i271 = 1, n
do i272 = 1, n
do i273 = 1, n
do i274 = 1, n
do i275 = 1, n
do i276 = 1, n
do i277 = 1, n
do i278 = 1, n
do i279 = 1, n
do i280 = 1, n
do i281 = 1, n
do i282 = 1, n
do i283 = 1, n
do i284 = 1, n
do i285 = 1, n
do i286 = 1, n
do i287 = 1, n
do i288 = 1, n
do i289 = 1, n
do i290 = 1, n
do i291 = 1, n
do i292 = 1, n
do i293 = 1, n
do i294 = 1, n
do i295 = 1, n
do i296 = 1, n
do i297 = 1, n
do i298 = 1, n
do i299 = 1, n
a(i0) = a(i0) + 1
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end do
end program p
